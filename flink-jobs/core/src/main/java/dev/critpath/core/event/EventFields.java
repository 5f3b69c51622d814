package dev.critpath.core.event;

/** A packet event's fields as read, in any order; absent optional values stay at ABSENT/null. */
final class EventFields {
    String sensor;
    SensorRole role;
    long tsUs = Long.MIN_VALUE;
    String communityId;
    String origH;
    String respH;
    int origP = -1;
    int respP = -1;
    Boolean isOrig;
    int flags = -1;
    long seq = -1;
    long ack = -1;
    int len = -1;
    int win = -1;
    int wscale = PacketEvent.ABSENT;
    int mss = PacketEvent.ABSENT;
    Boolean sackOk;
    long[] sack;
    long tsval = PacketEvent.ABSENT;
    long tsecr = PacketEvent.ABSENT;
    int ipId = PacketEvent.ABSENT;
    int ttl = -1;
    long captureIndex = PacketEvent.ABSENT;

    /** Sets a string-valued field; the value has passed {@link EventField#validString}. */
    void setString(EventField field, String v) {
        switch (field) {
            case SENSOR -> sensor = v;
            case SENSOR_ROLE -> role = SensorRole.fromWire(v);
            case COMMUNITY_ID -> communityId = v;
            case ORIG_H -> origH = v;
            case RESP_H -> respH = v;
            default -> throw new IllegalArgumentException(field.wire + " is not a string field");
        }
    }

    /** Sets an integer field; the value is within the field's range. */
    void setInteger(EventField field, long v) {
        switch (field) {
            case TS_US -> tsUs = v;
            case ORIG_P -> origP = (int) v;
            case RESP_P -> respP = (int) v;
            case FLAGS -> flags = (int) v;
            case SEQ -> seq = v;
            case ACK -> ack = v;
            case LEN -> len = (int) v;
            case WIN -> win = (int) v;
            case WSCALE -> wscale = (int) v;
            case MSS -> mss = (int) v;
            case TSVAL -> tsval = v;
            case TSECR -> tsecr = v;
            case IP_ID -> ipId = (int) v;
            case TTL -> ttl = (int) v;
            case CAPTURE_INDEX -> captureIndex = v;
            default -> throw new IllegalArgumentException(field.wire + " is not an integer field");
        }
    }

    void setBoolean(EventField field, boolean v) {
        switch (field) {
            case IS_ORIG -> isOrig = v;
            case SACK_OK -> sackOk = v;
            default -> throw new IllegalArgumentException(field.wire + " is not a boolean field");
        }
    }

    /**
     * The event, after the checks that span fields.
     *
     * @param seed the Community ID seed to check the hash with; negative skips the hash check
     * @param flowChecked this flow's addresses and hash were checked with an earlier event
     */
    PacketEvent build(int seed, boolean flowChecked) throws InvalidEventException {
        require(sensor != null, "sensor");
        require(tsUs != Long.MIN_VALUE, "ts_us");
        require(communityId != null, "community_id");
        require(origH != null, "orig_h");
        require(origP >= 0, "orig_p");
        require(respH != null, "resp_h");
        require(respP >= 0, "resp_p");
        require(isOrig != null, "is_orig");
        require(flags >= 0, "flags");
        require(seq >= 0, "seq");
        require(ack >= 0, "ack");
        require(len >= 0, "len");
        require(win >= 0, "win");
        require(ttl >= 0, "ttl");
        if (flowChecked) {
            return event();
        }
        byte[] o = IpText.parse(origH);
        byte[] r = IpText.parse(respH);
        if (o.length != r.length) {
            throw new InvalidEventException(EventError.BAD_FORMAT, "resp_h", "orig_h and resp_h mix IPv4 and IPv6");
        }
        if (seed >= 0) {
            String expected = CommunityId.tcpV1(o, origP, r, respP, seed);
            if (!expected.equals(communityId)) {
                throw new InvalidEventException(EventError.COMMUNITY_ID_MISMATCH, "community_id",
                        "community_id " + communityId + " does not match the 5-tuple (expected " + expected + " with seed " + seed + ")");
            }
        }
        return event();
    }

    private PacketEvent event() {
        return new PacketEvent(sensor, role, tsUs, communityId, origH, origP, respH, respP, isOrig, flags,
                seq, ack, len, win, wscale, mss, sackOk, sack, tsval, tsecr, ipId, ttl, captureIndex);
    }

    private static void require(boolean present, String field) throws InvalidEventException {
        if (!present) {
            throw new InvalidEventException(EventError.MISSING_FIELD, field, "required field " + field + " is missing");
        }
    }
}
