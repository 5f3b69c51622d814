package main

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

var (
	clientAddr = netip.MustParseAddr("10.71.1.2")
	serverAddr = netip.MustParseAddr("10.71.2.2")
)

// buildTCP makes an IPv4/TCP packet with a 12-byte option block (like the
// timestamp option) and payloadLen payload bytes.
func buildTCP(src, dst netip.Addr, sport, dport uint16, seq, ack uint32, flags uint8, payloadLen int) []byte {
	const ipLen, tcpLen = 20, 32
	b := make([]byte, ipLen+tcpLen+payloadLen)
	b[0] = 0x45
	binary.BigEndian.PutUint16(b[2:], uint16(len(b)))
	b[8], b[9] = 64, 6
	s, d := src.As4(), dst.As4()
	copy(b[12:], s[:])
	copy(b[16:], d[:])
	t := b[ipLen:]
	binary.BigEndian.PutUint16(t[0:], sport)
	binary.BigEndian.PutUint16(t[2:], dport)
	binary.BigEndian.PutUint32(t[4:], seq)
	binary.BigEndian.PutUint32(t[8:], ack)
	t[12] = tcpLen / 4 << 4
	t[13] = flags
	return b
}

func TestParseTCP(t *testing.T) {
	pkt := buildTCP(serverAddr, clientAddr, 8080, 43210, 1000, 2000, flagPSH|flagACK, 1448)
	p, ok := parseTCP(pkt)
	if !ok {
		t.Fatal("not parsed")
	}
	want := tcpPacket{src: serverAddr, dst: clientAddr, sport: 8080, dport: 43210, seq: 1000, ack: 2000, flags: flagPSH | flagACK, payloadLen: 1448}
	if p != want {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	if dst, ok := parseIPv4Dst(pkt); !ok || dst != clientAddr {
		t.Fatalf("dst %v %v", dst, ok)
	}
}

func TestParseTCPIgnoresTrailingBytes(t *testing.T) {
	// The IP total length, not the buffer size, bounds the payload.
	pkt := append(buildTCP(clientAddr, serverAddr, 1, 2, 0, 0, flagACK, 10), 0, 0, 0, 0)
	if p, ok := parseTCP(pkt); !ok || p.payloadLen != 10 {
		t.Fatalf("payload %d ok %v", p.payloadLen, ok)
	}
}

func TestParseTCPRejects(t *testing.T) {
	udp := buildTCP(clientAddr, serverAddr, 1, 2, 0, 0, 0, 0)
	udp[9] = 17
	ipv6 := make([]byte, 60)
	ipv6[0] = 0x60
	fragment := buildTCP(clientAddr, serverAddr, 1, 2, 0, 0, flagACK, 100)
	binary.BigEndian.PutUint16(fragment[6:], 10)
	badOffset := buildTCP(clientAddr, serverAddr, 1, 2, 0, 0, flagACK, 0)
	badOffset[20+12] = 15 << 4
	for name, pkt := range map[string][]byte{
		"udp": udp, "ipv6": ipv6, "fragment": fragment, "data offset past end": badOffset,
		"truncated": buildTCP(clientAddr, serverAddr, 1, 2, 0, 0, flagACK, 100)[:40],
	} {
		if _, ok := parseTCP(pkt); ok {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestFlagStringAndKind(t *testing.T) {
	cases := []struct {
		flags   uint8
		payload int
		letters string
		kind    string
	}{
		{flagSYN, 0, "S", "syn"},
		{flagSYN | flagACK, 0, "SA", "synack"},
		{flagACK, 0, "A", "ack"},
		{flagPSH | flagACK, 100, "PA", "data"},
		{flagFIN | flagACK, 0, "FA", "fin"},
		{flagFIN | flagPSH | flagACK, 100, "FPA", "data"},
		{flagRST, 0, "R", "rst"},
		{flagACK | flagECE | flagCWR, 0, "AEC", "ack"},
	}
	for _, c := range cases {
		p := tcpPacket{flags: c.flags, payloadLen: c.payload}
		if got := flagString(c.flags); got != c.letters {
			t.Errorf("flags %#x: %q, want %q", c.flags, got, c.letters)
		}
		if got := p.kind(); got != c.kind {
			t.Errorf("flags %q: kind %q, want %q", c.letters, got, c.kind)
		}
	}
}
