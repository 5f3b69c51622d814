package dev.critpath.core.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IpTextTest {
    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "10.71.1.2", "255.255.255.255", "::", "::1", "fe80::1", "2001:db8::2",
        "2001:db8:0:0:1:0:0:1", "::ffff:10.1.2.3", "1:2:3:4:5:6:7:8", "1::", "2001:DB8::A", "64:ff9b::192.0.2.33"})
    void parsesLikeTheJdkForLiterals(String s) throws Exception {
        assertArrayEquals(InetAddress.getByName(s).getAddress().length == 4 && s.contains(":")
                ? mapped(InetAddress.getByName(s).getAddress()) : InetAddress.getByName(s).getAddress(), IpText.parse(s));
    }

    private static byte[] mapped(byte[] v4) {
        byte[] out = new byte[16];
        out[10] = (byte) 0xff;
        out[11] = (byte) 0xff;
        System.arraycopy(v4, 0, out, 12, 4);
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", "a.b.c.d", "example.com",
        ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", ":1:2", "1:", "g::1", "::1.2.3", "1:2:3:4:5:6:7:1.2.3.4"})
    void rejectsNonLiterals(String s) {
        assertNull(IpText.parse(s), s);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.71.1.2", "::", "::1", "2001:db8::1", "2001:db8:0:1:1:1:1:1", "fe80:0:0:1::1", "1:0:0:2::"})
    void formatsCanonically(String s) {
        assertEquals(s, IpText.format(IpText.parse(s)));
    }
}
