package kaenlog.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code klog serve} in a JVM of its own, so that it can be killed for real: {@link #kill()} is
 * {@code Process.destroyForcibly()}, SIGKILL on Linux. Nothing of the broker runs after it: no
 * shutdown hook, no finally block, no flush. What survives is exactly what its write calls had
 * handed to the kernel (the page cache outlives the process), which is what a crashed broker
 * finds when it starts again.
 *
 * <p>The broker's stderr (its log: one line per connection it closed, and why) is kept line by line;
 * its heap is capped ({@code -Xmx}), by default with {@code -XX:+ExitOnOutOfMemoryError}, so running
 * out of memory ends the process instead of limping on: a broker that is still alive did not run out.
 */
public final class BrokerProcess implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
    private static final Pattern KAFKA_PORT = Pattern.compile("kafka protocol on (\\S+):(\\d+)");
    private static final Pattern JDWP = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
    private static final int MAX_LOG_LINES = 200_000;
    private static final long START_TIMEOUT_MS = 60_000;

    /** Quick to start, one GC thread, and out of memory means out: the process ends. */
    public static final List<String> DEFAULT_JVM_ARGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Xshare:auto", "-XX:+ExitOnOutOfMemoryError");

    /**
     * How to start it.
     *
     * @param classpath    where kaenlog.cli.Klog and every chapter's handlers are (the caller's own)
     * @param maxHeap      the -Xmx of the broker JVM, e.g. "64m"
     * @param segmentBytes klog serve's --segment-bytes, 0 for its default
     * @param jvmArgs      the JVM's options besides -Xmx and -cp
     * @param serveArgs    more flags for klog serve (its limits, e.g. --max-connections 100)
     * @param port         klog serve's --port: 0 for one the system picks, or a fixed one (a broker
     *                     restarted behind a proxy must come back on the port the proxy forwards to)
     */
    public record Options(String classpath, String maxHeap, int segmentBytes, List<String> jvmArgs,
                          List<String> serveArgs, int port) {
        public Options {
            jvmArgs = List.copyOf(jvmArgs);
            serveArgs = List.copyOf(serveArgs);
        }

        /** The caller's own classpath, a 128 MiB heap, klog serve's default segment size, {@link #DEFAULT_JVM_ARGS}. */
        public static Options ofThisClasspath() {
            return new Options(System.getProperty("java.class.path"), "128m", 0, DEFAULT_JVM_ARGS, List.of(), 0);
        }

        public Options withServeArgs(List<String> args) {
            return new Options(classpath, maxHeap, segmentBytes, jvmArgs, args, port);
        }

        /** These klog serve flags after the current ones. */
        public Options plusServeArgs(String... more) {
            List<String> all = new ArrayList<>(serveArgs);
            all.addAll(List.of(more));
            return new Options(classpath, maxHeap, segmentBytes, jvmArgs, all, port);
        }

        /** Without -XX:+ExitOnOutOfMemoryError: an OutOfMemoryError kills a thread, not the process. */
        public Options withoutExitOnOutOfMemoryError() {
            return withJvmArgs(jvmArgs.stream().filter(a -> !a.equals("-XX:+ExitOnOutOfMemoryError")).toList());
        }

        /** These options after the current ones (e.g. a debugger agent). */
        public Options plusJvmArgs(List<String> more) {
            List<String> all = new ArrayList<>(jvmArgs);
            all.addAll(more);
            return withJvmArgs(all);
        }

        public Options withMaxHeap(String heap) {
            return new Options(classpath, heap, segmentBytes, jvmArgs, serveArgs, port);
        }

        public Options withSegmentBytes(int bytes) {
            return new Options(classpath, maxHeap, bytes, jvmArgs, serveArgs, port);
        }

        public Options withJvmArgs(List<String> args) {
            return new Options(classpath, maxHeap, segmentBytes, args, serveArgs, port);
        }

        /** klog serve on this port (0: one the system picks). */
        public Options withPort(int fixed) {
            return new Options(classpath, maxHeap, segmentBytes, jvmArgs, serveArgs, fixed);
        }
    }

    private final Process process;
    private final String host;
    private final int port;
    private final int debugPort;
    private final List<String> log;
    private final Thread[] drains;
    /** What the broker printed on stdout (its listening lines); set once, right after start. */
    private List<String> stdout = List.of();

    private BrokerProcess(Process process, String host, int port, int debugPort, List<String> log, Thread[] drains) {
        this.process = process;
        this.host = host;
        this.port = port;
        this.debugPort = debugPort;
        this.log = log;
        this.drains = drains;
    }

    /** Starts {@code klog serve --dir dir --port P} (0 unless the options fix one) and waits for its "listening on HOST:PORT" line. */
    public static BrokerProcess start(Path dir, Options options) throws IOException {
        List<String> serve = new ArrayList<>(List.of("serve", "--dir", dir.toString(), "--port",
                Integer.toString(options.port())));
        if (options.segmentBytes() > 0) {
            serve.addAll(List.of("--segment-bytes", Integer.toString(options.segmentBytes())));
        }
        serve.addAll(options.serveArgs());
        return startKlog(serve, options, LISTENING);
    }

    /**
     * Starts {@code klog ARGS} (any subcommand: {@code serve}, {@code zookeeper}) with the options'
     * JVM, and waits for a stdout line that matches {@code ready}, whose groups 1 and 2 are the host
     * and port it serves on. The options' serve flags are not used: {@code klogArgs} are all of them.
     */
    public static BrokerProcess startKlog(List<String> klogArgs, Options options, Pattern ready) throws IOException {
        List<String> command = new ArrayList<>(List.of(javaExecutable(), "-Xmx" + options.maxHeap(),
                "-Dfile.encoding=UTF-8"));
        command.addAll(options.jvmArgs());
        command.addAll(List.of("-cp", options.classpath(), "kaenlog.cli.Klog"));
        command.addAll(klogArgs);
        Process process = new ProcessBuilder(command).start();
        List<String> stdout = new ArrayList<>();
        List<String> stderr = new ArrayList<>();
        Thread[] drains = {drain(process.getInputStream(), stdout, "stdout"), drain(process.getErrorStream(), stderr,
                "stderr")};
        try {
            Deadline deadline = Deadline.in(START_TIMEOUT_MS);
            Matcher listening = null;
            while (listening == null) {
                listening = firstMatch(stdout, ready);
                if (listening == null && (!process.isAlive() || deadline.passed())) {
                    throw new IOException("klog " + klogArgs.get(0) + " did not start (alive: " + process.isAlive()
                            + "); stdout " + snapshot(stdout) + ", stderr " + snapshot(stderr));
                }
                if (listening == null) {
                    Deadline.pause(5);
                }
            }
            Matcher jdwp = firstMatch(stdout, JDWP);
            BrokerProcess started = new BrokerProcess(process, listening.group(1), Integer.parseInt(listening.group(2)),
                    jdwp == null ? -1 : Integer.parseInt(jdwp.group(1)), stderr, drains);
            started.stdout = stdout;
            return started;
        } catch (IOException | RuntimeException e) {
            process.destroyForcibly();
            throw e;
        }
    }

    /** What the process printed on stdout so far. */
    public List<String> stdout() {
        return snapshot(stdout);
    }

    private static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static Thread drain(InputStream stream, List<String> lines, String name) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    synchronized (lines) {
                        if (lines.size() < MAX_LOG_LINES) {
                            lines.add(line);
                        }
                    }
                }
            } catch (IOException ended) {
                // the process is gone
            }
        }, "broker-process-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static Matcher firstMatch(List<String> lines, Pattern pattern) {
        synchronized (lines) {
            for (String line : lines) {
                Matcher m = pattern.matcher(line);
                if (m.find()) {
                    return m;
                }
            }
        }
        return null;
    }

    private static List<String> snapshot(List<String> lines) {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    public String host() {
        return host;
    }

    /** The Kafka port of a broker started with {@code --kafka-port 0} (chapter 9 on the classpath); waits for its line. */
    public int kafkaPort() throws IOException {
        Deadline deadline = Deadline.in(START_TIMEOUT_MS);
        while (true) {
            Matcher m = firstMatch(stdout, KAFKA_PORT);
            if (m != null) {
                return Integer.parseInt(m.group(2));
            }
            if (!process.isAlive() || deadline.passed()) {
                throw new IOException("no 'kafka protocol on' line: start the broker with --kafka-port 0 and chapter 9"
                        + " on the classpath; stdout " + snapshot(stdout));
            }
            Deadline.pause(5);
        }
    }

    public int port() {
        return port;
    }

    /** The JDWP port when started with a debugger agent at address 0, else -1. */
    public int debugPort() {
        return debugPort;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The broker's log (stderr) so far. */
    public List<String> log() {
        return snapshot(log);
    }

    /** Waits (bounded) for a log line that satisfies {@code matches}; true when one came. */
    public boolean awaitLog(Predicate<String> matches, long timeoutMs) {
        return Deadline.in(timeoutMs).await(() -> {
            synchronized (log) {
                return log.stream().anyMatch(matches);
            }
        });
    }

    /** SIGKILL: the broker stops between two instructions. Returns the exit status (137 on Linux). */
    public int kill() throws IOException {
        process.destroyForcibly();
        return awaitExit();
    }

    /**
     * Sends the process a signal with {@code kill -SIG pid}: {@code STOP} freezes it between two
     * instructions (its sockets stay open, its ZooKeeper session stops heartbeating), {@code CONT}
     * lets it go on as if nothing happened, {@code TERM} asks it to stop cleanly.
     */
    public void signal(String name) throws IOException {
        Processes.signal(process, name);
    }

    /** SIGTERM and a wait for the exit: klog serve's shutdown hook closes the broker (and its ZooKeeper session). */
    public int terminate() throws IOException {
        signal("TERM");
        return awaitExit();
    }

    /** A clean stop (SIGTERM: klog serve's shutdown hook closes the broker), SIGKILL if it takes too long. */
    @Override
    public void close() throws IOException {
        Processes.stopGently(process, 20);
        awaitExit();
    }

    private int awaitExit() throws IOException {
        int status = Processes.awaitExit(process, "broker process");
        try {
            for (Thread drain : drains) {
                drain.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading the broker's last output", e);
        }
        return status;
    }

    /** Open file descriptors of the broker (/proc/PID/fd), -1 where there is no /proc. */
    public long openFds() {
        try (var fds = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
            return fds.count();
        } catch (IOException | RuntimeException noProc) {
            return -1;
        }
    }

    /**
     * Lowers the broker's file-descriptor limit (RLIMIT_NOFILE, soft and hard) while it runs, with
     * util-linux's {@code prlimit --pid}; false when that is not possible here.
     */
    public boolean limitOpenFiles(long limit) {
        try {
            Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(process.pid()),
                    "--nofile=" + limit + ":" + limit).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A field of /proc/PID/status in kB or as a count ("VmHWM", "VmRSS", "Threads"); -1 where there
     * is no /proc (not Linux) or the process is gone.
     */
    public long procStatus(String field) {
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException noProc) {
            return -1;
        }
        return -1;
    }
}
