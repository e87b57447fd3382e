/**
 * Splice as a library: the entry to reading, disassembling and rewriting RISC-V64 ELF executables
 * and to translating profiles as perf2bolt does.
 *
 * <ul>
 *   <li>{@link dev.splice.Binary#open(java.nio.file.Path)} reads a file: its {@link
 *       dev.splice.Function}s, sections and symbols.
 *   <li>{@link dev.splice.Function#instructions()} decodes a function into {@link
 *       dev.splice.Instruction}s: address, size, bytes, the exact mnemonic and text, {@link
 *       dev.splice.Operand}s as values and the {@link dev.splice.isa.ControlFlow} class.
 *   <li>{@link dev.splice.Binary#points(String...)} selects insertion points by spec ({@code
 *       loop:hot_*}, {@code exit:main}, {@code insn:*:amo.*}, ...), each with the refusal an
 *       insertion there would meet.
 *   <li>{@link dev.splice.Binary#rewrite()} replaces functions and inserts fragments (at addresses
 *       or at the points of specs: {@link dev.splice.Rewrite#at(String, String)}); {@link
 *       dev.splice.Rewrite#writeTo(java.nio.file.Path)} writes the result.
 *   <li>{@link dev.splice.Profiles#translate(java.nio.file.Path, java.nio.file.Path,
 *       dev.splice.profile.ProfileTranslation.InputFormat, java.nio.file.Path, dev.splice.profile.ProfileTranslation.OutputFormat)} translates a profile to BOLT's fdata
 *       or YAML.
 * </ul>
 *
 * <pre>{@code
 * Binary binary = Binary.open(Path.of("prog"));
 * for (Function f : binary.functions()) {
 *     System.out.println(f.name());
 * }
 * Function main = binary.function("main").orElseThrow();
 * for (Instruction i : main.instructions()) {
 *     System.out.println(i.text() + " " + i.controlFlow() + " " + i.operands());
 * }
 * binary.rewrite().insert(main.address(), "addi zero, zero, 0\n").writeTo(Path.of("prog.patched"));
 * }</pre>
 *
 * <p>Inputs are never modified and outputs are written atomically. What Splice does not
 * understand or cannot prove correct is refused with a {@link dev.splice.base.BadInputException}
 * whose message says what, where and why. The packages below this one are the layers the entry is
 * built on ({@code elf}, {@code isa}, {@code listing}, {@code patch}, {@code profile}, ...);
 * {@link dev.splice.Binary#elf()} leads to the ELF model.
 */
package dev.splice;
