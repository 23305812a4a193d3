package kaenlog.produce;

/**
 * The first field of every request: which message follows. A request frame's payload is
 * apiKey int16 · correlationId int32 · body; a response's is correlationId int32 · body.
 * Later chapters add their own keys (chapter 7: 2, INIT_PRODUCER_ID).
 */
public final class ApiKeys {
    public static final short PRODUCE = 0;
    public static final short FETCH = 1;

    private ApiKeys() {
    }
}
