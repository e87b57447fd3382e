import dev.splice.Binary;
import dev.splice.Function;
import dev.splice.Instruction;
import dev.splice.Operand;
import dev.splice.Profiles;
import dev.splice.isa.ControlFlow;
import dev.splice.patch.Point;
import dev.splice.profile.ProfileTranslation.InputFormat;
import dev.splice.profile.ProfileTranslation.OutputFormat;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Splice as a library, in five tasks: list the functions of a RISC-V64 executable, disassemble one,
 * insert an instruction at its first instruction and write the result, translate a one-line
 * profile of its first conditional branch to BOLT's fdata, and select the function's loop heads by
 * spec and insert an instruction at each.
 *
 * <p>Usage: {@code java -cp target/splice.jar:... Example BINARY FUNCTION OUTDIR} (BINARY linked
 * with {@code -Wl,--emit-relocs}, for the insertion); {@code make test} runs it on
 * build/programs/rv64/loops.relocs and hot_loop.
 */
public class Example {
    public static void main(String[] args) throws Exception {
        Path input = Path.of(args[0]);
        Path out = Path.of(args[2]);
        Binary binary = Binary.open(input);

        // 1. List the functions.
        for (Function f : binary.functions()) {
            System.out.printf("function %x %d %s%n", f.address(), f.size(), f.name());
        }

        // 2. Disassemble one: each instruction with its operand values and control-flow class.
        Function function = binary.function(args[1]).orElseThrow();
        for (Instruction i : function.instructions()) {
            System.out.printf("%x: %-28s %s %s%n", i.address(), i.text(), i.controlFlow(), i.operands());
        }

        // 3. Insert a fragment (here one no-op) before the function's first instruction and write.
        binary.rewrite().insert(function.address(), "addi zero, zero, 0\n").writeTo(out.resolve("patched"));

        // 4. Translate a one-line pre-aggregated profile: the first conditional branch, taken 7 times.
        Instruction branch = function.instructions().stream()
                .filter(i -> i.controlFlow() == ControlFlow.BRANCH).findFirst().orElseThrow();
        Operand.Target target = (Operand.Target) branch.operands().get(branch.operands().size() - 1);
        Files.writeString(out.resolve("profile.pa"), String.format("B %x %x 7 0%n", branch.address(), target.address()));
        Profiles.translate(input, out.resolve("profile.pa"), InputFormat.PRE_AGGREGATED,
                out.resolve("profile.fdata"), OutputFormat.FDATA);
        System.out.print("fdata: " + Files.readString(out.resolve("profile.fdata")));

        // 5. Choose points by spec: the function's loop heads, each with the refusal it would meet; insert at them.
        for (Point p : binary.points("loop:" + function.name())) {
            System.out.printf("point %x %s %s%n", p.address(), p.location(), p.accepted() ? "ok" : p.refusal().reason());
        }
        binary.rewrite().at("loop:" + function.name(), "addi zero, zero, 0\n").writeTo(out.resolve("looped"));
    }
}
