package dev.critpath.core.event;

/** Why a packet event was rejected; the codes are part of the schema's test vectors. */
public enum EventError {
    /** Not a JSON object, or cut short. */
    MALFORMED_JSON,
    /** A required field is absent. */
    MISSING_FIELD,
    /** A field has the wrong JSON type (e.g. a port as a string, a timestamp in float seconds). */
    WRONG_TYPE,
    /** A number outside its range (ports, 32-bit sequence numbers, timestamps before 1970 or from 2100 on). */
    OUT_OF_RANGE,
    /** A string that does not have the required form (address, Community ID, sensor name, SACK list). */
    BAD_FORMAT,
    /** The Community ID does not hash from the event's own 5-tuple with the expected seed. */
    COMMUNITY_ID_MISMATCH,
    /** An Avro single-object record that is cut short, runs on, or breaks Avro's binary encoding (a union branch, enum symbol or varint that cannot be). */
    MALFORMED_AVRO,
    /** An Avro single-object record written with a schema other than packet-event.avsc (its fingerprint says which). */
    UNKNOWN_SCHEMA
}
