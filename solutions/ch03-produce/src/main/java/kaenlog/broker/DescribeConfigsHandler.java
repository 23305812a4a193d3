package kaenlog.broker;

import java.util.List;
import java.util.Optional;
import kaenlog.wire.ApiKeys;
import kaenlog.wire.DescribeConfigs;
import kaenlog.wire.ErrorCode;
import kaenlog.wire.MalformedMessageException;
import kaenlog.wire.PartitionNames;

/** Answers DESCRIBE_CONFIGS from the broker's {@link PartitionConfigs}; it opens no partition. */
public final class DescribeConfigsHandler implements RequestHandler {
    @Override
    public short apiKey() {
        return ApiKeys.DESCRIBE_CONFIGS;
    }

    @Override
    public Optional<byte[]> handle(byte[] body, BrokerContext broker) {
        DescribeConfigs.Request request = DescribeConfigs.Request.decode(body);
        List<PartitionConfigs.Entry> entries;
        if (request.partition().isEmpty()) {
            entries = broker.configs().describeBroker();
        } else {
            String problem = PartitionNames.problem(request.partition());
            if (problem != null) {
                throw new MalformedMessageException(problem);
            }
            entries = broker.configs().describe(request.partition());
        }
        return Optional.of(new DescribeConfigs.Response(ErrorCode.NONE, entries.stream()
                .map(e -> new DescribeConfigs.Entry(e.name(), e.value(), e.source().name())).toList()).encode());
    }
}
