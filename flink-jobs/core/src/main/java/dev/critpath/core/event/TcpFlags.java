package dev.critpath.core.event;

/** TCP header flag bits as they appear in the flags byte. */
public final class TcpFlags {
    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int PSH = 0x08;
    public static final int ACK = 0x10;
    public static final int URG = 0x20;
    public static final int ECE = 0x40;
    public static final int CWR = 0x80;

    private static final String LETTERS = "FSRPAUEC";

    private TcpFlags() {
    }

    public static boolean has(int flags, int bit) {
        return (flags & bit) != 0;
    }

    /** Every flags byte's letters, made once: an arc and a kept packet each name theirs. */
    private static final String[] LETTERS_OF = new String[256];

    static {
        for (int f = 0; f < LETTERS_OF.length; f++) {
            StringBuilder sb = new StringBuilder(4);
            // SYN, FIN, RST, PSH first (tcpdump order), then the rest
            for (int bit : new int[] {1, 0, 2, 3, 4, 5, 6, 7}) {
                if ((f & (1 << bit)) != 0) {
                    sb.append(LETTERS.charAt(bit));
                }
            }
            LETTERS_OF[f] = sb.length() == 0 ? "." : sb.toString();
        }
    }

    /** tcpdump-style letters in a fixed order, e.g. "SA" for SYN/ACK, "." for none. */
    public static String letters(int flags) {
        return LETTERS_OF[flags & 0xff];
    }
}
