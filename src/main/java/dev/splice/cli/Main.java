package dev.splice.cli;

import dev.splice.base.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine;

/** The `splice` command: parses arguments, dispatches to a subcommand, maps failures to exit codes. */
@Command(
        name = "splice",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = Main.DESCRIPTION,
        subcommands = {
            DisasmCommand.class,
            AsmCommand.class,
            ExportCommand.class,
            InfoCommand.class,
            RunCommand.class,
            PatchCommand.class,
            PointsCommand.class,
            InstrumentCommand.class,
            BatCommand.class,
            ProfileCommand.class,
            WeighCommand.class,
            HelpCommand.class,
            DocsCommand.class,
        })
public final class Main implements Runnable {
    static final String DESCRIPTION = "Machine-code toolkit for performance work on RISC-V64.";

    /** Exit status for success. */
    public static final int OK = 0;
    /** Exit status for a usage error (unknown option, missing argument). */
    public static final int USAGE = 1;
    /** Exit status for bad input (malformed file, refused rewrite, I/O failure). */
    public static final int BAD_INPUT = 2;
    /** Exit status for an internal error (a bug in Splice). */
    public static final int INTERNAL = 3;
    /** Exit status when standard output was closed early (as a shell reports a peer killed by SIGPIPE). */
    public static final int CLOSED_OUTPUT = 141;

    /**
     * The exit statuses every command's help (and man page) lists; 'splice run' and 'splice weigh
     * catalog' end with the program's own status instead.
     */
    static final java.util.Map<String, String> EXIT_STATUS = exitStatuses();

    private static java.util.Map<String, String> exitStatuses() {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("0", "success");
        m.put("1", "usage error (unknown option, bad option value)");
        m.put("2", "bad input or a refused rewrite");
        m.put("3", "internal error");
        m.put("141", "standard output closed early (as after SIGPIPE)");
        m.put("other", "'splice run' and 'splice weigh catalog': the program's own status");
        return java.util.Collections.unmodifiableMap(m);
    }

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces on errors.")
    boolean debug;

    @CommandLine.Mixin Progress progress;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command; see 'splice --help'.");
    }

    /**
     * Runs the CLI and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /**
     * Runs the CLI and returns the exit status, without exiting (used by tests).
     *
     * @param args the command line
     * @return {@link #OK}, {@link #USAGE}, {@link #BAD_INPUT}, or 3 for an internal error
     */
    public static int execute(String... args) {
        Progress.reset();
        java.util.OptionalInt recorded = ProfileRecordFastPath.run(args);
        if (recorded.isPresent()) {
            return recorded.getAsInt();
        }
        CommandLine cli = forArguments(args);
        conventions(cli);
        boolean debug = java.util.Arrays.asList(args).contains("--debug");
        cli.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("splice: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> failed(ex, commandLine.getErr(), debug));
        return cli.execute(args);
    }

    /**
     * What a command's exception means: the message on {@code err} and the exit status.
     *
     * @param ex what the command threw
     * @param err standard error
     * @param debug whether --debug was given (the stack trace is printed too)
     * @return the exit status
     */
    static int failed(Exception ex, java.io.PrintWriter err, boolean debug) {
        if (closedOutput(ex)) {
            return CLOSED_OUTPUT; // quietly, as objdump ends under `| head`
        }
        if (debug) {
            ex.printStackTrace(err);
        }
        if (ex instanceof BadInputException || ex instanceof UncheckedIOException || ex instanceof IOException) {
            err.println("splice: " + describe(ex));
            return BAD_INPUT;
        }
        if (ex instanceof CommandLine.ParameterException pe) {
            err.println("splice: " + pe.getMessage());
            return USAGE;
        }
        err.println("splice: internal error: " + describe(ex) + (debug ? "" : " (run with --debug for the stack trace)"));
        return INTERNAL;
    }

    /**
     * What every command has, set once over the tree instead of in each class: the version
     * ({@code --version} of a subcommand prints the same as {@code splice --version}) and the exit
     * statuses at the end of the help.
     */
    static void conventions(CommandLine cli) {
        CommandLine.Model.CommandSpec spec = cli.getCommandSpec();
        if (spec.mixinStandardHelpOptions()) {
            spec.versionProvider(new Version());
        }
        spec.usageMessage().exitCodeListHeading("%nExit status:%n").exitCodeList(EXIT_STATUS);
        for (CommandLine sub : cli.getSubcommands().values()) {
            conventions(sub);
        }
    }

    /** A write to standard output (or a file) failed because the reader went away: {@code splice disasm | head}. */
    private static boolean closedOutput(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof IOException && t.getMessage() != null && t.getMessage().contains("Broken pipe")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The command line for {@code args}. When the first argument names a subcommand, only that one
     * is built, under {@link Lean}: picocli reflects over every option of every subcommand it is
     * given, which cost a short command like {@code splice patch} about 0.2 s of CPU at start-up.
     * Anything else (no argument, an option, {@code help} and {@code docs}, which describe the whole
     * tree, an unknown name) gets the whole tree.
     */
    static CommandLine forArguments(String... args) {
        if (args.length > 0 && !args[0].startsWith("-")) {
            for (Class<?> c : Main.class.getAnnotation(Command.class).subcommands()) {
                Command command = c.getAnnotation(Command.class);
                if (c != HelpCommand.class && c != DocsCommand.class && command != null && command.name().equals(args[0])) {
                    try {
                        Object sub = c.getDeclaredConstructor().newInstance();
                        if (sub instanceof WarmsUp w) {
                            w.warmUp(); // on another core, while picocli builds the command line
                        }
                        return new CommandLine(new Lean()).addSubcommand(new CommandLine(sub));
                    } catch (ReflectiveOperationException e) {
                        break; // let picocli build it the usual way (and report the problem)
                    }
                }
            }
        }
        return new CommandLine(new Main());
    }

    /** A subcommand that can start loading what it will need before its arguments are parsed. */
    interface WarmsUp {
        /** Starts the loading on another thread and returns at once; nothing observable may depend on it. */
        void warmUp();
    }

    /** The top command as {@link Main} declares it, without its subcommands (see {@link #forArguments}). */
    @Command(name = "splice", mixinStandardHelpOptions = true, versionProvider = Main.Version.class, description = DESCRIPTION)
    static final class Lean implements Runnable {
        @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces on errors.")
        boolean debug;

        @CommandLine.Mixin Progress progress;

        @Override
        public void run() {
            throw new IllegalStateException("a subcommand is always given");
        }
    }

    private static String describe(Throwable ex) {
        if (ex instanceof UncheckedIOException u && u.getCause() != null) {
            ex = u.getCause();
        }
        String message = ex.getMessage();
        if (ex instanceof java.nio.file.NoSuchFileException) {
            return message + ": no such file";
        }
        if (ex instanceof java.nio.file.AccessDeniedException) {
            return message + ": permission denied";
        }
        return message == null ? ex.getClass().getSimpleName() : message;
    }

    /**
     * The version Maven filtered into the jar, the commit it was built from, and the peer tools
     * found on the PATH with their own version lines (what a bug report needs).
     */
    static final class Version implements IVersionProvider {
        /** Peer tools: the command and the option that prints its version. */
        private static final String[][] PEERS = {
            {"qemu-riscv64", "--version"}, {"qemu-system-riscv64", "--version"},
            {"llvm-objdump-22", "--version"}, {"llvm-bolt-22", "--version"},
            {"riscv64-linux-gnu-objdump", "--version"}, {"riscv64-linux-gnu-gcc", "--version"},
        };

        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            String commit = p.getProperty("commit", "");
            java.util.List<String> lines = new java.util.ArrayList<>();
            // a jar built from a tree with uncommitted changes is not that commit's
            String changes = "true".equals(p.getProperty("dirty")) ? ", with uncommitted changes" : "";
            lines.add("splice " + p.getProperty("version", "unknown")
                    + (commit.isEmpty() || commit.startsWith("$") ? "" : " (commit " + commit + changes + ")"));
            for (String[] peer : PEERS) {
                lines.add(String.format("  %-26s %s", peer[0], PeerVersion.of(peer[0], peer[1])));
            }
            return lines.toArray(String[]::new);
        }
    }
}
