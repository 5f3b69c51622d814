package dev.critpath.core.pcap;

/** A capture file that cannot be read: not pcap/pcapng, corrupt headers, unsupported variants. */
public final class PcapFormatException extends Exception {
    public PcapFormatException(String message) {
        super(message);
    }
}
