package dev.critpath.core.event;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Community ID v1 flow hash (corelight/community-id-spec) for TCP, the key under which both
 * sensors of a connection name it. Zeek computes the same value with community_id_v1().
 */
public final class CommunityId {
    private static final int PROTO_TCP = 6;

    private CommunityId() {
    }

    /** "1:" + base64(SHA-1(seed, ordered endpoints, proto, ports)). */
    public static String tcpV1(byte[] srcAddr, int srcPort, byte[] dstAddr, int dstPort, int seed) {
        if (srcAddr.length != dstAddr.length) {
            throw new IllegalArgumentException("mixed IPv4/IPv6 endpoints");
        }
        if (greater(srcAddr, srcPort, dstAddr, dstPort)) {
            byte[] a = srcAddr;
            srcAddr = dstAddr;
            dstAddr = a;
            int p = srcPort;
            srcPort = dstPort;
            dstPort = p;
        }
        MessageDigest sha1 = SHA1.get();
        sha1.update((byte) (seed >>> 8));
        sha1.update((byte) seed);
        sha1.update(srcAddr);
        sha1.update(dstAddr);
        sha1.update((byte) PROTO_TCP);
        sha1.update((byte) 0);
        sha1.update((byte) (srcPort >>> 8));
        sha1.update((byte) srcPort);
        sha1.update((byte) (dstPort >>> 8));
        sha1.update((byte) dstPort);
        return "1:" + Base64.getEncoder().encodeToString(sha1.digest());
    }

    /** Same from address text; throws IllegalArgumentException for unparsable addresses. */
    public static String tcpV1(String srcAddr, int srcPort, String dstAddr, int dstPort, int seed) {
        byte[] s = IpText.parse(srcAddr);
        byte[] d = IpText.parse(dstAddr);
        if (s == null || d == null) {
            throw new IllegalArgumentException("not an IP address: " + (s == null ? srcAddr : dstAddr));
        }
        return tcpV1(s, srcPort, d, dstPort, seed);
    }

    private static boolean greater(byte[] a, int aPort, byte[] b, int bPort) {
        for (int i = 0; i < a.length; i++) {
            int x = a[i] & 0xff;
            int y = b[i] & 0xff;
            if (x != y) {
                return x > y;
            }
        }
        return aPort > bPort;
    }

    /** One digest per thread (digest() resets it): looking one up costs more than hashing a flow. */
    private static final ThreadLocal<MessageDigest> SHA1 = ThreadLocal.withInitial(CommunityId::newSha1);

    private static MessageDigest newSha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime ships SHA-1", e);
        }
    }
}
