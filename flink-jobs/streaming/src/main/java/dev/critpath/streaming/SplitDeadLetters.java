package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/** Valid events go on; dead letters go to the side output, counted per reason in critpath.dead_letters.REASON. */
final class SplitDeadLetters extends ProcessFunction<Incoming, PacketEvent> {
    static final OutputTag<DeadLetter> DEAD = new OutputTag<>("unreadable-input", TypeInformation.of(DeadLetter.class));

    private transient Map<String, Counter> byReason;
    private transient MetricGroup group;

    @Override
    public void open(OpenContext ctx) {
        group = getRuntimeContext().getMetricGroup().addGroup("critpath").addGroup("dead_letters");
        byReason = new HashMap<>();
    }

    @Override
    public void processElement(Incoming in, Context ctx, Collector<PacketEvent> out) {
        if (in.event != null) {
            out.collect(in.event);
            return;
        }
        byReason.computeIfAbsent(in.dead.reason(), group::counter).inc();
        ctx.output(DEAD, in.dead);
    }
}
