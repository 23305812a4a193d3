package kaenlog.batch;

import static kaenlog.batch.BatchFields.bytesOf;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;

/** kafka-clients' reading of a batch, in kaen-log's terms: what the Kafka oracle tests compare with. */
final class KafkaBatches {
    private KafkaBatches() {
    }

    /** The one batch kafka-clients finds in {@code records}; fails, naming {@code context}, when there are more or none. */
    static MutableRecordBatch onlyBatch(MemoryRecords records, String context) {
        List<MutableRecordBatch> batches = new ArrayList<>();
        records.batches().forEach(batches::add);
        assertThat(batches).as("%s: the bytes hold exactly one batch", context).hasSize(1);
        return batches.get(0);
    }

    /** Kafka's records, in kaen-log's terms, to compare whole records at once. */
    static List<Record> kaenLogView(MutableRecordBatch batch) {
        List<Record> out = new ArrayList<>();
        for (org.apache.kafka.common.record.Record r : batch) {
            List<RecordHeader> headers = new ArrayList<>();
            for (Header h : r.headers()) {
                headers.add(new RecordHeader(h.key(), h.value()));
            }
            out.add(new Record(r.offset(), r.timestamp(), r.hasKey() ? bytesOf(r.key()) : null,
                    r.hasValue() ? bytesOf(r.value()) : null, headers));
        }
        return out;
    }
}
