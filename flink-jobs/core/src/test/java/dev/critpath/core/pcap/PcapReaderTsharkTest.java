package dev.critpath.core.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.critpath.core.testing.Peers;
import dev.critpath.core.testing.Skipped;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Ground truth for the reader: tshark's dissection of every public capture, field by field
 * (timestamp, ports, raw seq/ack, payload length, flags, window, IP id, TTL, TCP options).
 */
class PcapReaderTsharkTest {
    private static final String FILTER = "tcp && !icmp && !icmpv6 && !ip.flags.mf==1 && !ip.frag_offset>0 && !ipv6.fragment";
    private static final String[] FIELDS = {"frame.number", "frame.time_epoch", "tcp.srcport", "tcp.dstport", "tcp.seq_raw",
        "tcp.ack_raw", "tcp.len", "tcp.flags", "tcp.window_size_value", "ip.id", "ip.ttl", "ipv6.hlim",
        "tcp.options.mss_val", "tcp.options.wscale.shift", "tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr",
        "tcp.options.sack_le", "tcp.options.sack_re", "ip.len", "ipv6.plen", "ip.hdr_len", "tcp.hdr_len", "_ws.expert.message"};

    @TestFactory
    Stream<? extends DynamicNode> everyPublicCaptureMatchesTshark() throws Exception {
        if (!Peers.available("tshark")) {
            return Skipped.because("tshark is not installed; .ci/run installs it");
        }
        List<Path> files = Peers.publicCaptures();
        if (files.isEmpty()) {
            return Skipped.because("no public captures under ../shared/traces/public");
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> compare(f)));
    }

    private static void compare(Path file) throws Exception {
        String[] cmd = new String[8 + 2 * FIELDS.length];
        int i = 0;
        for (String s : new String[] {"tshark", "-n", "-o", "tcp.relative_sequence_numbers:FALSE", "-r", file.toString(), "-Y", FILTER}) {
            cmd[i++] = s;
        }
        String[] full = new String[cmd.length + 4];
        System.arraycopy(cmd, 0, full, 0, i);
        full[i++] = "-T";
        full[i++] = "fields";
        full[i++] = "-E";
        full[i++] = "occurrence=a"; // all expert messages; other fields take their first value below
        for (String f : FIELDS) {
            full = java.util.Arrays.copyOf(full, full.length < i + 2 ? i + 2 : full.length);
            full[i++] = "-e";
            full[i++] = f;
        }
        Map<Long, String[]> expected = new HashMap<>();
        for (String line : Peers.run(java.util.Arrays.copyOf(full, i))) {
            String[] c = line.split("\t", -1);
            for (int k = 0; k < c.length - 1; k++) {
                int comma = c[k].indexOf(',');
                c[k] = comma < 0 ? c[k] : c[k].substring(0, comma);
            }
            expected.put(Long.parseLong(c[0]), c);
        }
        int compared = 0;
        try (PcapReader r = PcapReader.open(file)) {
            RawPacket p = new RawPacket();
            while (r.next(p)) {
                String[] t = expected.remove(r.recordNumber());
                assertTrue(t != null, file + ": frame " + r.recordNumber() + " decoded as TCP but tshark does not show it");
                String where = file.getFileName() + " frame " + r.recordNumber();
                assertEquals(micros(t[1]), p.tsUs, where + " timestamp");
                assertEquals(Integer.parseInt(t[2]), p.srcPort, where);
                assertEquals(Integer.parseInt(t[3]), p.dstPort, where);
                assertEquals(Long.parseLong(t[4]), p.seq, where + " seq");
                assertEquals(Long.parseLong(t[5]), p.ack, where + " ack");
                assertEquals(ipDeclaredPayload(t), p.payloadLen, where + " payload length from the IP header");
                if (Integer.parseInt(t[6]) != p.payloadLen) {
                    // tshark caps the payload at the recorded wire length; we follow tcptrace and trust IP
                    assertTrue(wireShorterThanIp(t), where + ": tshark len " + t[6] + " differs although the frame is consistent");
                }
                assertEquals(Integer.decode(t[7]) & 0xff, p.flags, where + " flags");
                assertEquals(Integer.parseInt(t[8]), p.win, where + " window");
                if (p.ipVersion == 4) {
                    assertEquals(Integer.decode(t[9]), p.ipId, where + " ip id");
                    assertEquals(Integer.parseInt(t[10]), p.ttl, where + " ttl");
                } else {
                    assertEquals(Integer.parseInt(t[11]), p.ttl, where + " hop limit");
                }
                assertEquals(opt(t[12]), p.mss, where + " mss");
                assertEquals(opt(t[13]), p.wscale, where + " wscale");
                assertEquals(optLong(t[14]), p.tsval, where + " tsval");
                assertEquals(optLong(t[15]), p.tsecr, where + " tsecr");
                if (!t[16].isEmpty()) {
                    assertEquals(Long.parseLong(t[16]), p.sack[0], where + " first SACK left edge");
                    assertEquals(Long.parseLong(t[17]), p.sack[1], where + " first SACK right edge");
                }
                compared++;
            }
        }
        // tshark may show TCP inside frames we cannot decode (tunnels, cut-short headers); none here
        assertTrue(expected.isEmpty(), file + ": tshark shows TCP frames the reader skipped: " + expected.keySet());
        assertTrue(compared > 0, file + ": no TCP packets");
    }

    private static int ipDeclaredPayload(String[] t) {
        int tcpHeader = Integer.parseInt(t[21]);
        return t[18].isEmpty() ? Integer.parseInt(t[19]) - tcpHeader // IPv6 payload length (no extension headers here)
                : Integer.parseInt(t[18]) - Integer.parseInt(t[20]) - tcpHeader;
    }

    private static boolean wireShorterThanIp(String[] t) {
        return t[22].contains("total length exceeds packet length") || t[22].contains("payload length exceeds");
    }

    private static long micros(String epoch) {
        String[] parts = epoch.split("\\.");
        String frac = (parts.length > 1 ? parts[1] : "") + "000000";
        return Long.parseLong(parts[0]) * 1_000_000L + Long.parseLong(frac.substring(0, 6));
    }

    private static int opt(String s) {
        return s.isEmpty() ? -1 : Integer.parseInt(s);
    }

    private static long optLong(String s) {
        return s.isEmpty() ? -1 : Long.parseLong(s);
    }
}
