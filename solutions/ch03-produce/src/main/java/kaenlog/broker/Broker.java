package kaenlog.broker;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import kaenlog.cli.Services;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.Frames;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.RequestEnvelope;
import kaenlog.wire.ResponseEnvelope;

/**
 * A kaen-log broker, wired the way Kafka's {@code KafkaServer} wires its parts: the
 * {@link SocketServer} accepts connections and gives each a thread of its own, which reads a request
 * frame, lets the {@link RequestHandler} for its apiKey answer ({@link #serve}: Kafka's
 * {@code KafkaApis}), writes the response frame, and reads the next. The {@link LogManager}
 * holds the partitions, the {@link Scheduler} runs the chapters' {@link BackgroundTask}s, and the
 * {@link BrokerClock} keeps the broker's time: a ticker moves it forward and lets every partition
 * expire what waited too long.
 *
 * <p>One client cannot hurt another: anything malformed it sends (a frame too long or negative, a
 * frame cut off, bytes that do not decode, an unknown apiKey, a partition name that is not one)
 * closes THAT connection, with one line naming the reason in the broker's log; every other
 * connection is served on.
 */
public final class Broker implements BrokerContext, Closeable {
    /** A trouble that can repeat as fast as a loop runs is logged once per this much broker time. */
    public static final long TROUBLE_LOG_INTERVAL_MS = SocketServer.TROUBLE_LOG_INTERVAL_MS;

    private final BrokerConfig config;
    /** The configs in force: {@code config}'s, with every topic's own ({@link #alterTopicConfigs} swaps it whole). */
    private volatile PartitionConfigs configs;
    private final PrintStream log;
    private final Map<Short, RequestHandler> handlers;
    private final List<BrokerExtension> extensions;
    private final BrokerClock clock;
    private final LogManager logManager;
    private final Scheduler scheduler;
    private final SocketServer socketServer;
    /** Lines a client can cause at will (a refused partition), one per kind per 10 s of broker time. */
    private final RateLimitedLog troubles;
    private final Set<CompletableFuture<?>> waiting = ConcurrentHashMap.newKeySet();
    private final CountDownLatch closedLatch = new CountDownLatch(1);
    private volatile boolean closed;

    private Broker(BrokerConfig config, ConnectionLimits limits, PrintStream log, Map<Short, RequestHandler> handlers,
                   List<BrokerExtension> extensions, BrokerClock clock, ThreadFactory connectionThreads)
            throws IOException {
        this.config = config;
        this.configs = withTopicConfigs(config);
        this.log = log;
        this.troubles = new RateLimitedLog(log, 10_000);
        this.handlers = handlers;
        this.extensions = List.copyOf(extensions);
        this.clock = clock;
        this.logManager = new LogManager(config, this::configs, limits.maxOpenPartitions(), log, extensions);
        List<BackgroundTask> tasks = extensions.stream().flatMap(e -> e.backgroundTasks().stream()).toList();
        this.scheduler = new Scheduler(tasks, this::configs, log, clock::nowMs, logManager::openPartitions);
        this.socketServer = SocketServer.bind(config, limits, log, clock::nowMs, logManager, connectionThreads);
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader) and the default limits. */
    public static Broker start(BrokerConfig config, PrintStream log) throws IOException {
        return start(config, ConnectionLimits.defaults(), log);
    }

    /** Starts a broker with the handlers registered on the classpath (ServiceLoader). */
    public static Broker start(BrokerConfig config, ConnectionLimits limits, PrintStream log) throws IOException {
        return start(config, limits, log, Services.load(RequestHandler.class), Thread::new);
    }

    /** Starts a broker with these handlers (the highest priority per apiKey wins) and the default limits. */
    public static Broker start(BrokerConfig config, PrintStream log, List<RequestHandler> candidates)
            throws IOException {
        return start(config, ConnectionLimits.defaults(), log, candidates, Thread::new);
    }

    /**
     * Starts a broker with these handlers and limits, and the background tasks of the
     * {@link BrokerExtension}s on the classpath; {@code connectionThreads} makes each connection's
     * thread (a test passes one whose threads fail to start, as under a pids limit).
     */
    public static Broker start(BrokerConfig config, ConnectionLimits limits, PrintStream log,
                               List<RequestHandler> candidates, ThreadFactory connectionThreads) throws IOException {
        SocketServer.refuseAPoolTooSmall(config, limits);
        if (candidates.isEmpty()) {
            throw new IllegalStateException("no request handlers: none is registered in"
                    + " META-INF/services/kaenlog.broker.RequestHandler on the classpath");
        }
        Map<Short, RequestHandler> handlers = chooseHandlers(candidates);
        refuseKeysOutsideTheTable(handlers);
        List<BrokerExtension> extensions = BrokerExtension.load();
        Files.createDirectories(config.dataDir());
        BrokerClock clock = BrokerClock.start(config.dataDir(), config.startNowMs());
        Broker broker = new Broker(config, limits, log, handlers, extensions, clock, connectionThreads);
        broker.logWhatItRuns(candidates);
        try {
            extensions.forEach(extension -> extension.opened(broker));
            broker.logManager.openPartitionsOnDisk();
        } catch (IOException | RuntimeException e) {
            broker.close();
            throw e;
        }
        broker.startThreads();
        return broker;
    }

    /**
     * One handler per apiKey: the highest priority wins, so a later chapter replaces an earlier
     * chapter's handler by registering one for the same key with a higher priority (chapter 7's
     * idempotent produce over chapter 3's). Two handlers sharing the highest priority of a key are
     * an error: which one ran would depend on the order of the classpath.
     */
    public static Map<Short, RequestHandler> chooseHandlers(List<RequestHandler> candidates) {
        // BEGIN-SOLUTION ch03 task 9: one handler per apiKey, the highest priority wins (BrokerTest)
        Map<Short, List<RequestHandler>> byKey = new TreeMap<>();
        for (RequestHandler candidate : candidates) {
            byKey.computeIfAbsent(candidate.apiKey(), k -> new ArrayList<>()).add(candidate);
        }
        Map<Short, RequestHandler> chosen = new TreeMap<>();
        byKey.forEach((apiKey, list) -> {
            list.sort(Comparator.comparingInt(RequestHandler::priority).reversed());
            if (list.size() > 1 && list.get(0).priority() == list.get(1).priority()) {
                throw new IllegalStateException("apiKey " + apiKey + ": " + list.get(0).getClass().getName()
                        + " and " + list.get(1).getClass().getName() + " both have priority "
                        + list.get(0).priority());
            }
            chosen.put(apiKey, list.get(0));
        });
        return chosen;
        // END-SOLUTION
    }

    /** Every key of a handler must be in chapter 3's table of api keys, the one list of them. */
    private static void refuseKeysOutsideTheTable(Map<Short, RequestHandler> handlers) {
        handlers.forEach((key, handler) -> {
            if (ApiKeys.of(key).isEmpty()) {
                throw new IllegalStateException(handler.getClass().getName() + " answers apiKey " + key
                        + ", which kaenlog.wire.ApiKeys does not list: add the key to that table first");
            }
        });
    }

    /** The start-up lines: which class answers each api key (and which it replaced), the tasks. */
    private void logWhatItRuns(List<RequestHandler> candidates) {
        log.println("broker time " + nowMs() + " ms" + (config.clock() == null ? " (virtual)" : " (wall clock)"));
        handlers.forEach((key, handler) -> {
            ApiKeys.ApiKey row = ApiKeys.of(key).orElseThrow();
            List<String> replaced = candidates.stream().filter(c -> c.apiKey() == key && c != handler)
                    .map(c -> c.getClass().getName() + " (chapter " + c.chapter() + ")").toList();
            log.println("apiKey " + key + " " + row.name() + ": " + handler.getClass().getName() + " (chapter "
                    + handler.chapter() + ")" + (replaced.isEmpty() ? "" : ", replacing " + String.join(", ", replaced)));
        });
        for (BackgroundTask task : scheduler.tasks()) {
            log.println("task " + task.name() + ": " + task.getClass().getName() + ", every "
                    + scheduler.intervalMs(task) + " ms (" + task.intervalKey() + ")");
        }
        log.flush();
    }

    private void startThreads() {
        socketServer.startAccepting(this::serve);
        if (config.tickMs() > 0) {
            clock.startTicker("klog-broker-" + port() + "-ticker", config.tickMs(), this::tick, log, () -> closed);
            scheduler.start("klog-broker-" + port() + "-tasks", config.tickMs());
        }
    }

    /** One tick of the ticker: by tickMs, or to the clock {@code klog serve} passed in. */
    private void tick() throws IOException {
        if (config.clock() == null) {
            advanceTime(config.tickMs());
        } else {
            advanceTimeTo(config.clock().getAsLong());
        }
    }

    /**
     * Serves one connection until the client hangs up between two requests (readFrame returns
     * null): read a request frame (apiKey · correlationId · body), find the handler for its apiKey,
     * and write back a response frame (correlationId · body) unless the handler answers nothing
     * (acks=0). Whatever is malformed is thrown, not answered: the caller logManager the reason and
     * closes this connection only.
     */
    void serve(InputStream in, OutputStream out) throws IOException {
        // BEGIN-SOLUTION ch03 task 9: serve one connection: read a frame, dispatch, answer (BrokerTest)
        while (true) {
            byte[] payload = Frames.readFrame(in, config.maxFrameBytes());
            if (payload == null) {
                return;
            }
            RequestEnvelope request = RequestEnvelope.decode(payload);
            RequestHandler handler = handlers.get(request.apiKey());
            if (handler == null) {
                throw new MalformedMessageException("unknown apiKey " + request.apiKey() + " (this broker answers "
                        + handlers.keySet() + ")");
            }
            Optional<byte[]> answer = handler.handle(request.body(), this);
            if (answer.isPresent()) {
                Frames.writeFrame(out, new ResponseEnvelope(request.correlationId(), answer.get()).encode());
            }
        }
        // END-SOLUTION
    }

    /**
     * Answers one request body with this broker's own handler for {@code apiKey}, the one its port
     * would use (chapter 9's Kafka listener asks chapter 7's INIT_PRODUCER_ID this way).
     */
    public Optional<byte[]> handle(short apiKey, byte[] body) throws IOException {
        RequestHandler handler = handlers.get(apiKey);
        if (handler == null) {
            throw new CloseConnectionException("this broker has no handler for kaen-log api key " + apiKey);
        }
        return handler.handle(body, this);
    }

    /**
     * The produce this broker's port answers PRODUCE with (chapter 7's, when it is on the classpath):
     * chapter 9's Kafka port produces through it with typed requests, so there is one produce path.
     */
    public ProduceHandler produceHandler() {
        if (handlers.get(ApiKeys.PRODUCE) instanceof ProduceHandler produce) {
            return produce;
        }
        throw new IllegalStateException("PRODUCE is answered by " + handlers.get(ApiKeys.PRODUCE)
                + ", which is no ProduceHandler: there is no typed produce to call");
    }

    /**
     * Moves the broker's time forward by {@code ms} and lets every open partition answer the parked
     * fetches whose deadline has come and time out the acks=all produces that waited too long. The
     * ticker calls it; a test with {@code tickMs} 0 calls it itself and decides when time passes.
     */
    public void advanceTime(long ms) throws IOException {
        if (closed) {
            throw new IllegalStateException("the broker is closed");
        }
        long now = clock.advance(ms);
        logManager.tick(now);
        socketServer.closeIdleConnections(now);
    }

    /** Moves the broker's time to {@code targetMs} if that is later; an earlier time changes nothing. */
    public void advanceTimeTo(long targetMs) throws IOException {
        long now = nowMs();
        if (targetMs > now) {
            advanceTime(targetMs - now);
        }
    }

    /**
     * Runs every background task whose time has come on every open partition. The tasks thread
     * calls it; a test with {@code tickMs} 0 calls it itself after moving the time.
     */
    public void runDueTasks() {
        scheduler.runDueTasks();
    }

    @Override
    public long nowMs() {
        return clock.nowMs();
    }

    @Override
    public PartitionConfigs configs() {
        return configs;
    }

    /** The configs the broker starts with: {@code config}'s, and every topic's own from {@link TopicConfigFile}. */
    private static PartitionConfigs withTopicConfigs(BrokerConfig config) throws IOException {
        PartitionConfigs configs = config.configs();
        for (Map.Entry<String, Map<String, String>> topic : TopicConfigFile.read(config.dataDir()).entrySet()) {
            try {
                configs = configs.withTopic(topic.getKey(), topic.getValue());
            } catch (IllegalArgumentException e) {
                throw new IOException(config.dataDir().resolve(TopicConfigFile.FILE_NAME) + ": topic " + topic.getKey()
                        + ": " + e.getMessage() + "; the broker does not start without its topics' configs", e);
            }
        }
        return configs;
    }

    /**
     * Replaces the own configs of each topic in {@code changes} (an empty map: none left), all or none:
     * checked, written to {@link TopicConfigFile} (forced to disk), then in force at once, for the
     * partitions opened from now on and for the open ones (their logs' next roll and flush, the next
     * produce's size limit, the next retention and cleaner run). An invalid value is an
     * {@link IllegalArgumentException} and changes nothing; a failed write an {@link IOException}, and
     * nothing changed either.
     */
    @Override
    public synchronized void alterTopicConfigs(Map<String, Map<String, String>> changes) throws IOException {
        PartitionConfigs next = configs;
        for (Map.Entry<String, Map<String, String>> topic : changes.entrySet()) {
            next = next.withTopic(topic.getKey(), topic.getValue());
        }
        if (next.topicConfigs().equals(configs.topicConfigs())) {
            return;
        }
        TopicConfigFile.write(config.dataDir(), next.topicConfigs());
        configs = next;
        logManager.reconfigure(changes.keySet());
    }

    @Override
    public Leadership leadership() {
        return config.leadership();
    }

    @Override
    public <T extends BrokerExtension> Optional<T> extension(Class<T> type) {
        return extensions.stream().filter(type::isInstance).map(type::cast).findFirst();
    }

    @Override
    public Partition partition(String name) throws IOException {
        return logManager.partition(name);
    }

    /**
     * Chapter 10: the partition called {@code name}, opened or created, and held open until
     * {@link #releasePartition} (a replica is in use for as long as this broker is one of its replicas).
     */
    public Partition holdPartition(String name) throws IOException {
        return logManager.hold(name);
    }

    /** The partition held by {@link #holdPartition} may be closed again to make room. */
    public void releasePartition(String name) {
        logManager.release(name);
    }

    /** The broker's log (its stderr under {@code klog serve}): what a chapter's part of it reports. */
    public PrintStream log() {
        return log;
    }

    @Override
    public Optional<Partition> existingPartition(String name) throws IOException {
        return logManager.existingPartition(name);
    }

    @Override
    public void removeIfEmpty(String name) throws IOException {
        logManager.removeIfEmpty(name);
    }

    @Override
    public void trouble(String kind, String line) {
        troubles.println(kind, line, clock.nowMs());
    }

    @Override
    public void refusedCreation(String why) {
        troubles.println("max.partitions", why, clock.nowMs());
    }

    /**
     * The request on this thread is done with the partitions it used so far (a Kafka request that
     * names many calls this after each): they may be closed to stay under max.open.partitions.
     */
    @Override
    public void partitionsDone() {
        logManager.requestDone();
    }

    /** Partitions the broker holds, open or on disk (at most max.partitions). */
    @Override
    public int heldPartitionCount() {
        return logManager.heldPartitionCount();
    }

    @Override
    public List<String> clientPartitionNames() throws IOException {
        return logManager.clientPartitionNames();
    }

    @Override
    public void deletePartition(String name) throws IOException {
        logManager.deletePartition(name);
    }

    @Override
    public <T> T await(CompletableFuture<T> answer) {
        waiting.add(answer);
        try {
            if (closed) {
                answer.cancel(false);
            }
            return answer.join();
        } finally {
            waiting.remove(answer);
        }
    }

    /**
     * Listens on one more port, serving its connections with {@code protocol}, under this broker's
     * limits: {@code max.connections} counts the connections of every port together, and request
     * bytes come from the same pool. Port 0 picks a free one ({@link SocketServer.Listener#port()}).
     */
    public SocketServer.Listener listen(String host, int port, SocketServer.ConnectionProtocol protocol)
            throws IOException {
        return socketServer.listen(host, port, protocol);
    }

    /**
     * Listens on one more port that speaks chapter 3's own framing ({@code protocol} serves it through
     * {@link #kaenLogProtocol}): chapter 10's inter-broker listener, where the followers fetch. Its
     * fetches are answered as on the broker's own port, the records sent from the segment files with
     * transferTo ({@link FetchHandler}); through {@link #listen} they would be read into memory and
     * copied, under the partition's lock when an append wakes them.
     */
    public SocketServer.Listener listenKaenLog(String host, int port, SocketServer.ConnectionProtocol protocol)
            throws IOException {
        return socketServer.listen(host, port, protocol, true);
    }

    /**
     * Chapter 3's own protocol ({@link #serve}), for another port of this broker that speaks it
     * ({@link #listenKaenLog}): chapter 10's inter-broker listener, where the followers fetch.
     */
    public SocketServer.ConnectionProtocol kaenLogProtocol() {
        return this::serve;
    }

    /** The ports of the listeners {@link #listen} added (chapter 9's Kafka port), in the order they were added. */
    public List<Integer> extraListenerPorts() {
        return socketServer.listenerPorts();
    }

    /** Partitions open right now (at most max.open.partitions, but for those in use). */
    public int openPartitionCount() {
        return logManager.openPartitionCount();
    }

    /** Bytes of the request memory pool free right now. */
    public long poolAvailableBytes() {
        return socketServer.poolAvailableBytes();
    }

    /** The port the broker listens on (the one picked when the config said 0). */
    public int port() {
        return socketServer.port();
    }

    /** host:port, e.g. 127.0.0.1:9092. */
    public String address() {
        return socketServer.address();
    }

    public BrokerConfig config() {
        return config;
    }

    public ConnectionLimits limits() {
        return socketServer.limits();
    }

    /** Connections being served right now. */
    public int connectionCount() {
        return socketServer.connectionCount();
    }

    /** Blocks until {@link #close()} has finished (klog serve waits here). */
    public void awaitClosed() throws InterruptedException {
        closedLatch.await();
    }

    /**
     * Stops accepting, closes every connection (a parked fetch is cancelled, its client gets no
     * answer), waits for the threads to end, and closes the partitions. Idempotent.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        logManager.shutdown();
        socketServer.shutdown();
        waiting.forEach(f -> f.cancel(false));
        clock.stopTicker();
        scheduler.close();
        socketServer.awaitShutdown();
        logManager.close();
        try {
            clock.checkpoint(true);
        } catch (IOException e) {
            log.println("writing " + TimeCheckpoint.FILE_NAME + ": " + e.getMessage());
        }
        closedLatch.countDown();
    }
}
