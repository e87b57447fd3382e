package dev.splice.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the real peer tools (llvm-objdump-22, llvm-mc-22, GNU as, qemu-riscv64, llvm-bolt-22,
 * perf2bolt-22, R, ...). A missing tool fails the test; it never skips.
 */
public final class Tools {
    private Tools() {}

    /** What a finished process printed and returned. */
    public record Result(int exitCode, String stdout, String stderr) {
        public Result checked(String what) {
            if (exitCode != 0) {
                fail(what + " exited " + exitCode + ":\n" + stderr + "\n" + stdout);
            }
            return this;
        }
    }

    /** Fails the test unless {@code command} is on the PATH. */
    public static String require(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return command;
            }
        }
        fail(command + " is not installed: run 'make deps' (make test does)");
        return command;
    }

    /** Runs a command (the first word must be on the PATH) with a timeout, feeding {@code stdin}. */
    public static Result run(List<String> command, String stdin, long timeoutSeconds) {
        require(command.get(0));
        try {
            Path out = Files.createTempFile("splice-tool", ".out");
            Path err = Files.createTempFile("splice-tool", ".err");
            try {
                ProcessBuilder pb = new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile());
                Process p = pb.start();
                try (var in = p.getOutputStream()) {
                    if (stdin != null) {
                        in.write(stdin.getBytes(StandardCharsets.UTF_8));
                    }
                }
                if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    fail(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
                }
                return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            fail("could not run " + command + ": " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
            return null;
        }
    }

    public static Result run(String... command) {
        return run(new ArrayList<>(List.of(command)), null, 600);
    }
}
