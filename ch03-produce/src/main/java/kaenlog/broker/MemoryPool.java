package kaenlog.broker;

import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;

/**
 * The bytes of requests the broker holds in memory at once, all connections together (Kafka's
 * {@code queued.max.request.bytes} and its {@code MemoryPool}). A connection reserves a frame's
 * announced length as soon as it has read the length, before a byte of the payload is read, and
 * gives it back once the request has been answered. When the pool is empty the connection waits
 * for room (Kafka mutes the channel: it stops reading from it) instead of the broker running out of
 * heap: the bytes it has not read yet stay in the kernel's socket buffer.
 *
 * <p>Frame limits alone bound one connection ({@code socket.request.max.bytes}); only this bounds
 * the sum.
 *
 * <p>Small requests go first: while one of at most {@link #SMALL_REQUEST_BYTES} waits, larger ones
 * wait behind it. Clients that stall whole megabyte frames fill the pool in a few frames; an ordinary
 * client's next small produce then gets the first room that frees up (a staller closed as idle)
 * instead of losing the race to the next megabyte. (Kafka's SimpleMemoryPool has no such order.)
 */
public final class MemoryPool {
    /** Requests up to this size are served before larger ones (a frame reader's first chunk). */
    public static final int SMALL_REQUEST_BYTES = 64 * 1024;

    private final long capacity;
    private long available;
    private int smallWaiting;
    private int waiting;
    private boolean closed;

    public MemoryPool(long capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("a memory pool needs room, not " + capacity + " bytes");
        }
        this.capacity = capacity;
        this.available = capacity;
    }

    /**
     * Takes {@code bytes} from the pool, waiting until they are free. A request larger than the whole
     * pool is an error (the broker checks at start that the pool holds its largest frame).
     */
    public synchronized void reserve(int bytes) throws InterruptedIOException {
        if (bytes < 0 || bytes > capacity) {
            throw new IllegalArgumentException("cannot reserve " + bytes + " bytes of a pool of " + capacity);
        }
        boolean small = bytes <= SMALL_REQUEST_BYTES;
        if (small) {
            smallWaiting++;
        }
        try {
            while ((available < bytes || !small && smallWaiting > 0) && !closed) {
                waiting++;
                try {
                    wait();
                } finally {
                    waiting--;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for " + bytes + " bytes of the pool");
        } finally {
            if (small) {
                smallWaiting--;
                notifyAll(); // large requests held back by this one may go now
            }
        }
        if (closed) {
            throw new CancellationException("the broker is shutting down");
        }
        available -= bytes;
    }

    /** Gives back what {@link #reserve} took, and wakes whoever waits for room. */
    public synchronized void release(int bytes) {
        if (bytes < 0 || available + bytes > capacity) {
            throw new IllegalStateException("released " + bytes + " bytes that were not reserved");
        }
        available += bytes;
        notifyAll();
    }

    /** Requests waiting for room right now (the broker sheds a stalled one when this stays above 0). */
    public synchronized int waiting() {
        return waiting;
    }

    public synchronized long available() {
        return available;
    }

    public long capacity() {
        return capacity;
    }

    /** Wakes every waiter with a CancellationException: the broker is closing. */
    public synchronized void close() {
        closed = true;
        notifyAll();
    }
}
