package kaenlog.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real ZooKeeper server for one test class, in the test JVM (ZooKeeperServerEmbedded: a warm
 * start takes tens of milliseconds), its data on a tmpfs when the machine has one, emptied before each test; every session a test opens with
 * {@link #connect()} is closed after it, all at once: ZooKeeper's client sleeps 100 ms in every
 * close (ClientCnxnSocketNIO.cleanup), which one at a time cost the gate and the mistakes
 * corpus, which run these tests again and again, half a second a test. One session that empties
 * the tree lives as long as the class, for the same reason. Register it as
 * {@code @RegisterExtension static final ZooKeeperFixture ZK = new ZooKeeperFixture();}.
 */
final class ZooKeeperFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    /** ZooKeeper's tick in the tests: a session may time out after 2 ticks, so 400 ms is allowed. */
    static final int TICK_MS = 200;
    static final int SESSION_MS = 4_000;
    private final List<ZkClient> sessions = new ArrayList<>();
    private Path dir;
    private EmbeddedZooKeeper server;
    private ZkClient cleaner;

    /** A tmpfs, where ZooKeeper's fsync of every transaction costs nothing (the properties write hundreds). */
    private static final Path TMPFS = Path.of("/dev/shm");

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        dir = Files.isDirectory(TMPFS) && Files.isWritable(TMPFS) ? Files.createTempDirectory(TMPFS, "klog-zk-test")
                : Files.createTempDirectory("klog-zk-test");
        server = EmbeddedZooKeeper.start(dir, 0, TICK_MS);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (cleaner == null || !cleaner.alive()) {
            cleaner = ZkClient.connect(server.connectString(), SESSION_MS);
        }
        cleaner.deleteRecursive("/");
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        List<Thread> closing = new ArrayList<>();
        for (ZkClient session : sessions) {
            Thread thread = new Thread(session::close, "zk-close");
            thread.start();
            closing.add(thread);
        }
        for (Thread thread : closing) {
            thread.join();
        }
        sessions.clear();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (cleaner != null) {
            cleaner.close();
        }
        server.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A new session (a broker, the controller, an administrator), closed after the test. */
    ZkClient connect() {
        try {
            ZkClient session = ZkClient.connect(server.connectString(), SESSION_MS);
            sessions.add(session);
            return session;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String connectString() {
        return server.connectString();
    }
}
