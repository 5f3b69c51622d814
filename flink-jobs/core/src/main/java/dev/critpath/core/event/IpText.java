package dev.critpath.core.event;

/**
 * Strict text forms of IP addresses, without DNS: InetAddress.getByName would resolve
 * host names, which an event validator must never do.
 */
public final class IpText {
    private IpText() {
    }

    /** The 4 or 16 address bytes, or null when s is not a dotted quad or an IPv6 literal. */
    public static byte[] parse(String s) {
        if (s == null || s.isEmpty() || s.length() > 45) {
            return null;
        }
        return s.indexOf(':') >= 0 ? parseV6(s) : parseV4(s, 0, s.length());
    }

    private static byte[] parseV4(String s, int from, int to) {
        byte[] out = new byte[4];
        int part = 0;
        int i = from;
        while (part < 4) {
            int start = i;
            int value = 0;
            while (i < to && s.charAt(i) >= '0' && s.charAt(i) <= '9' && i - start < 3) {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            // leading zeros are rejected, as in the JSON Schema's pattern
            if (digits == 0 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[part++] = (byte) value;
            if (part < 4) {
                if (i >= to || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == to ? out : null;
    }

    private static byte[] parseV6(String s) {
        int n = s.length();
        int[] groups = new int[8];
        int count = 0;
        int gap = -1; // group index where "::" stands
        int i = 0;
        if (s.startsWith("::")) {
            gap = 0;
            i = 2;
            if (i == n) {
                return new byte[16];
            }
        } else if (s.charAt(0) == ':') {
            return null;
        }
        byte[] v4tail = null;
        while (i < n) {
            int start = i;
            int value = 0;
            while (i < n && Character.digit(s.charAt(i), 16) >= 0 && i - start < 4) {
                value = (value << 4) | Character.digit(s.charAt(i), 16);
                i++;
            }
            if (i < n && s.charAt(i) == '.') {
                // embedded IPv4 in the last 32 bits
                v4tail = parseV4(s, start, n);
                if (v4tail == null || count > 6) {
                    return null;
                }
                i = n;
                break;
            }
            if (i == start || count == 8) {
                return null;
            }
            groups[count++] = value;
            if (i == n) {
                break;
            }
            if (s.charAt(i) != ':') {
                return null;
            }
            i++;
            if (i < n && s.charAt(i) == ':') {
                if (gap >= 0) {
                    return null;
                }
                gap = count;
                i++;
            } else if (i == n) {
                return null; // trailing single colon
            }
        }
        int total = count + (v4tail != null ? 2 : 0);
        if ((gap < 0 && total != 8) || (gap >= 0 && total > 7)) {
            return null;
        }
        byte[] out = new byte[16];
        int[] full = new int[8];
        int fill = v4tail != null ? 6 : 8;
        if (gap < 0) {
            System.arraycopy(groups, 0, full, 0, count);
        } else {
            System.arraycopy(groups, 0, full, 0, gap);
            int after = count - gap;
            System.arraycopy(groups, gap, full, fill - after, after);
        }
        for (int g = 0; g < fill; g++) {
            out[2 * g] = (byte) (full[g] >>> 8);
            out[2 * g + 1] = (byte) full[g];
        }
        if (v4tail != null) {
            System.arraycopy(v4tail, 0, out, 12, 4);
        }
        return out;
    }

    /** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run as "::"). */
    public static String format(byte[] a) {
        if (a.length == 4) {
            return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((a[2 * i] & 0xff) << 8) | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1; // RFC 5952: a single zero group is not shortened
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }
}
