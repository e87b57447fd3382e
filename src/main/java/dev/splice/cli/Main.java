package dev.splice.cli;

import dev.splice.BadInputException;
import dev.splice.listing.ListingWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The `splice` command: parses arguments, dispatches to a subcommand, maps failures to exit codes. */
@Command(
        name = "splice",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Machine-code toolkit for performance work on RISC-V64.",
        subcommands = {
            DisasmCommand.class,
            AsmCommand.class,
            ExportCommand.class,
            InfoCommand.class,
            RunCommand.class,
            PatchCommand.class,
            BatCommand.class,
            WeighCommand.class,
            CommandLine.HelpCommand.class,
        })
public final class Main implements Runnable {
    /** Exit status for success. */
    public static final int OK = 0;
    /** Exit status for a usage error (unknown option, missing argument). */
    public static final int USAGE = 1;
    /** Exit status for bad input (malformed file, refused rewrite, I/O failure). */
    public static final int BAD_INPUT = 2;

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces on errors.")
    boolean debug;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "Missing command; see 'splice --help'.");
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the CLI and returns the exit status, without exiting (used by tests). */
    public static int execute(String... args) {
        CommandLine cli = commandLine(args);
        boolean debug = java.util.Arrays.asList(args).contains("--debug");
        cli.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("splice: " + ex.getMessage());
            ex.getCommandLine().getErr().println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            if (debug) {
                ex.printStackTrace(commandLine.getErr());
            }
            if (ex instanceof BadInputException || ex instanceof UncheckedIOException || ex instanceof IOException) {
                commandLine.getErr().println("splice: " + describe(ex));
                return BAD_INPUT;
            }
            if (ex instanceof CommandLine.ParameterException pe) {
                commandLine.getErr().println("splice: " + pe.getMessage());
                return USAGE;
            }
            commandLine.getErr().println("splice: internal error: " + describe(ex)
                    + (debug ? "" : " (run with --debug for the stack trace)"));
            return 3;
        });
        return cli.execute(args);
    }

    /**
     * The command line for these arguments. Picocli inspects every registered command up front
     * (reflection and class loading: most of a short command's start-up), so when the first
     * argument names a subcommand, the root gets only that one, with the same name, options and
     * help. Otherwise (root help, version, an unknown name) the full {@link Main}.
     */
    static CommandLine commandLine(String[] args) {
        if (args.length > 0 && (args[0].equals("disasm") || args[0].equals("export"))) {
            // Their decoder tables take as long to build as picocli takes to start: overlap them.
            ListingWriter.prepare();
        }
        if (args.length > 0 && !args[0].startsWith("-")) {
            // Commands are named <Name>Command: read the one candidate's annotation, not all of
            // them (each costs an annotation proxy).
            String className = args[0] + "Command";
            for (Class<?> sub : Main.class.getAnnotation(Command.class).subcommands()) {
                if (sub.getSimpleName().equalsIgnoreCase(className)) {
                    Command command = sub.getAnnotation(Command.class);
                    if (command != null && command.name().equals(args[0])) {
                        return new CommandLine(new Root()).addSubcommand(sub);
                    }
                }
            }
        }
        return new CommandLine(new Main());
    }

    /**
     * {@link Main} without its subcommands: the root when one subcommand is named (so the root's
     * own --help and --version, which come before any subcommand, are not needed here).
     */
    @Command(name = "splice")
    static final class Root {
        @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Print stack traces on errors.")
        boolean debug;
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

    /** Reads the version Maven filtered into the jar. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {"splice " + p.getProperty("version", "unknown")};
        }
    }
}
