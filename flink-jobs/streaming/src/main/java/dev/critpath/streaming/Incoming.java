package dev.critpath.streaming;

import dev.critpath.core.event.PacketEvent;

/** One Kafka record as the source read it: a valid packet event, or a dead letter saying why not. */
public final class Incoming {
    public PacketEvent event;
    public DeadLetter dead;

    public Incoming() {
    }

    public static Incoming of(PacketEvent e) {
        Incoming i = new Incoming();
        i.event = e;
        return i;
    }

    public static Incoming dead(DeadLetter d) {
        Incoming i = new Incoming();
        i.dead = d;
        return i;
    }
}
