package kaenlog.cluster;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Producer ids for a cluster (given code), as ZooKeeper-era Kafka handed them out
 * ({@code ZkProducerIdManager}): a broker reserves a block of {@value #BLOCK_SIZE} ids at a time in
 * {@code /latest_producer_id_block}, the next block after the one the znode names, with a write
 * conditional on the znode's version (two brokers reserving at once: one wins, the other reads again
 * and takes the block after). So no two brokers hand out the same id, and any broker knows an id is
 * real if it lies in a block reserved so far: the new leader of a partition accepts the producer the
 * old leader's broker gave its id to.
 */
final class ProducerIdBlocks {
    /** Kafka's {@code ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE}. */
    static final int BLOCK_SIZE = 1000;
    static final String PATH = "/latest_producer_id_block";

    /** One reserved block, first and last id included. */
    record Block(int broker, long first, long last) {
    }

    private final int brokerId;
    private Block current;
    private long next;
    /** The last id of the newest block seen in ZooKeeper: every id up to it has been reserved. */
    private long reservedThrough = -1;

    ProducerIdBlocks(int brokerId) {
        this.brokerId = brokerId;
    }

    /** The next id of this broker's block, reserving a new block when this one is used up. */
    synchronized long issue(ZkClient zk) throws IOException {
        if (current == null || next > current.last()) {
            current = reserve(zk);
            next = current.first();
        }
        return next++;
    }

    /** True when {@code producerId} lies in a block some broker reserved (read again when it is past the last seen). */
    synchronized boolean wasIssued(ZkClient zk, long producerId) throws IOException {
        if (producerId < 0) {
            return false;
        }
        if (producerId > reservedThrough) {
            read(zk).ifPresent(block -> reservedThrough = Math.max(reservedThrough, block.last()));
        }
        return producerId <= reservedThrough;
    }

    /** The block after the newest one, written conditionally; a lost race reads again. */
    private Block reserve(ZkClient zk) throws IOException {
        for (int attempt = 0; attempt < 100; attempt++) {
            try {
                Optional<ZkClient.Node> latest = zk.get(PATH);
                long first = latest.map(node -> decode(node.data()).last() + 1).orElse(0L);
                Block block = new Block(brokerId, first, first + BLOCK_SIZE - 1);
                if (latest.isEmpty()) {
                    zk.create(PATH, encode(block), CreateMode.PERSISTENT);
                } else {
                    zk.setData(PATH, encode(block), latest.get().stat().getVersion());
                }
                reservedThrough = Math.max(reservedThrough, block.last());
                return block;
            } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException lostTheRace) {
                // another broker reserved the same block first: read again, take the next
            } catch (KeeperException e) {
                throw new IOException("reserving producer ids in " + PATH + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while reserving producer ids", e);
            }
        }
        throw new IOException("reserving producer ids in " + PATH + ": lost 100 races in a row");
    }

    private static Optional<Block> read(ZkClient zk) throws IOException {
        try {
            return zk.get(PATH).map(node -> decode(node.data()));
        } catch (KeeperException e) {
            throw new IOException("reading " + PATH + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Kafka's {@code ProducerIdBlockZNode} JSON, version 1: the ids as STRINGS. */
    static byte[] encode(Block block) {
        Map<String, Object> json = Json.object();
        json.put("version", 1);
        json.put("broker", block.broker());
        json.put("block_start", Long.toString(block.first()));
        json.put("block_end", Long.toString(block.last()));
        return Json.write(json);
    }

    static Block decode(byte[] data) {
        Map<String, Object> json = Json.parseObject(data);
        return new Block(Json.intField(json, "broker"), Long.parseLong(Json.stringField(json, "block_start")),
                Long.parseLong(Json.stringField(json, "block_end")));
    }
}
