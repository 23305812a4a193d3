package kaenlog.broker;

import kaenlog.wire.ErrorCode;

/**
 * A step a later chapter adds to the produce path refuses the batch: the produce is answered with
 * {@link #error()} and nothing is written (chapter 7: OUT_OF_ORDER_SEQUENCE_NUMBER). Kafka's
 * storage throws an {@code ApiException} subclass the same way ({@code OutOfOrderSequenceException}),
 * and its broker answers with the error code that exception stands for.
 */
public final class ProduceRefusedException extends RuntimeException {
    private final transient ErrorCode error;

    public ProduceRefusedException(ErrorCode error, String message) {
        super(message);
        this.error = error;
    }

    public ErrorCode error() {
        return error;
    }
}
