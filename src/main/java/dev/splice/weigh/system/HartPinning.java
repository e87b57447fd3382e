package dev.splice.weigh.system;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import dev.splice.weigh.CpuAffinity;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/**
 * Puts each hart of a multi-hart run on a host CPU of its own before the guest runs its first
 * instruction. QEMU starts stopped ({@code -S}) with a QMP socket; {@code query-cpus-fast} names
 * each vCPU's host thread; {@code taskset} confines hart 0 to the CPU the caller is confined to (the
 * campaign's timed passes: the last CPU) or else the last online CPU, and hart 1 to the next online
 * CPU below it; then {@code cont}.
 *
 * <p>Why: contention needs the harts to run at the same time. Left to the scheduler, the two vCPU
 * threads of a new QEMU sometimes shared one CPU for the few milliseconds a pass's windows last, and
 * a whole pass then measured a contended line as a quiet one (docs/weigh-system.md, "Two harts").
 */
final class HartPinning {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SELF = Path.of("/proc/thread-self/status");

    private HartPinning() {}

    /**
     * QEMU's options for a run this class starts: stopped, with a QMP server on {@code socket}.
     *
     * @param socket where QEMU listens (a path under 108 bytes)
     * @return the options
     */
    static List<String> qemuOptions(Path socket) {
        return List.of("-S", "-qmp", "unix:" + socket + ",server=on,wait=off");
    }

    /**
     * One CPU per hart: hart 0 on the caller's CPU when it is confined to one, else on the last
     * online CPU; the other harts on the online CPUs below it, highest first.
     *
     * @param harts how many harts
     * @param online the online CPUs, ascending
     * @param caller the CPUs the calling thread may use
     * @return the CPU of each hart
     * @throws BadInputException when the host has fewer CPUs than harts
     */
    static List<Integer> cpus(int harts, List<Integer> online, List<Integer> caller) {
        if (online.size() < harts) {
            throw new BadInputException(harts + " harts need " + harts + " online CPUs to run at the same time; this "
                    + "host has " + online.size() + " (" + CpuAffinity.ONLINE + ")");
        }
        LinkedHashSet<Integer> order = new LinkedHashSet<>();
        order.add(caller.size() == 1 && online.contains(caller.get(0)) ? caller.get(0) : online.get(online.size() - 1));
        for (int i = online.size() - 1; i >= 0; i--) {
            order.add(online.get(i));
        }
        return List.copyOf(new ArrayList<>(order).subList(0, harts));
    }

    /**
     * Pins the harts of a QEMU started with {@link #qemuOptions} and lets the guest run.
     *
     * @param qemu the QEMU process (its pid is QEMU's: {@code taskset -c} execs it)
     * @param socket its QMP socket
     * @param harts how many harts it runs
     * @param timeout how long QEMU may take to open the socket
     * @return the CPU each hart's thread is confined to, as read back from /proc
     * @throws BadInputException when QEMU does not answer or a thread cannot be pinned
     */
    static List<Integer> start(Process qemu, Path socket, int harts, Duration timeout) throws IOException {
        List<Integer> cpus = cpus(harts, CpuAffinity.cpuList(Files.readString(CpuAffinity.ONLINE).strip()),
                CpuAffinity.allowed(SELF).map(CpuAffinity::cpuList).orElse(List.of()));
        try (SocketChannel channel = connect(qemu, socket, timeout)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                    StandardCharsets.UTF_8));
            OutputStream out = Channels.newOutputStream(channel);
            reply(in, "the greeting"); // {"QMP": {...}}
            execute(in, out, "qmp_capabilities");
            JsonNode vcpus = execute(in, out, "query-cpus-fast");
            if (vcpus.size() != harts) {
                throw new BadInputException(SystemQemu.QEMU + " reports " + vcpus.size() + " vCPUs, not " + harts);
            }
            for (JsonNode vcpu : vcpus) {
                int hart = vcpu.path("cpu-index").asInt();
                String tid = vcpu.path("thread-id").asText();
                String cpu = Integer.toString(cpus.get(hart));
                Optional<String> failure = CpuAffinity.taskset(cpu, tid);
                Path status = Path.of("/proc", Long.toString(qemu.pid()), "task", tid, "status");
                if (failure.isPresent() || !CpuAffinity.allowed(status).equals(Optional.of(cpu))) {
                    throw new BadInputException("cannot confine hart " + hart + " (thread " + tid + ") to CPU " + cpu
                            + ": taskset -p -c " + cpu + " " + tid + failure.map(f -> ": " + f).orElse(
                                    " left it on CPUs " + CpuAffinity.allowed(status).orElse("unknown")));
                }
            }
            continueGuest(in, out);
        }
        return cpus;
    }

    /** Connects to QEMU's QMP socket once QEMU has opened it. */
    private static SocketChannel connect(Process qemu, Path socket, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (Files.exists(socket)) {
                SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    channel.connect(UnixDomainSocketAddress.of(socket));
                    return channel;
                } catch (IOException e) {
                    channel.close(); // created but not listening yet
                }
            }
            if (!qemu.isAlive()) {
                throw new BadInputException(SystemQemu.QEMU + " exited with status " + qemu.exitValue()
                        + " before it opened its QMP socket");
            }
            if (System.nanoTime() > deadline) {
                throw new BadInputException(SystemQemu.QEMU + " did not open its QMP socket within "
                        + timeout.toSeconds() + " s");
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BadInputException(SystemQemu.QEMU + " was interrupted", e);
            }
        }
    }

    /**
     * Sends {@code cont} and waits for its answer, unless QEMU ends first: a short guest may run to
     * its end and QEMU exit before the reply is read (a connection reset, or the socket closed, on a
     * quiet machine); the run's own status then says how it went. A refusal is still an error.
     */
    private static void continueGuest(BufferedReader in, OutputStream out) throws IOException {
        try {
            execute(in, out, "cont", true);
        } catch (java.net.SocketException e) {
            // QEMU exited with the reply unread
        }
    }

    /** Sends a QMP command without arguments and returns its {@code return} value. */
    private static JsonNode execute(BufferedReader in, OutputStream out, String command) throws IOException {
        return execute(in, out, command, false);
    }

    /** The same; with {@code mayEnd}, QEMU closing the socket first gives null instead of an error. */
    private static JsonNode execute(BufferedReader in, OutputStream out, String command, boolean mayEnd)
            throws IOException {
        out.write(("{\"execute\": \"" + command + "\"}\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        while (true) {
            String line = in.readLine();
            if (line == null) {
                if (mayEnd) {
                    return null;
                }
                throw closed("'" + command + "'");
            }
            JsonNode reply = JSON.readTree(line);
            if (reply.has("error")) {
                throw new BadInputException(SystemQemu.QEMU + " refused QMP '" + command + "': "
                        + reply.path("error").path("desc").asText());
            }
            if (reply.has("return")) {
                return reply.get("return");
            }
            // an event ({"event": "RESUME", ...}): not the reply
        }
    }

    private static JsonNode reply(BufferedReader in, String what) throws IOException {
        String line = in.readLine();
        if (line == null) {
            throw closed(what);
        }
        return JSON.readTree(line);
    }

    private static BadInputException closed(String what) {
        return new BadInputException(SystemQemu.QEMU + " closed its QMP socket before answering " + what);
    }
}
