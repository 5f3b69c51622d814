package main

import (
	"encoding/binary"
	"net/netip"
)

// TCP flag bits, in the order tcpdump prints their letters.
const (
	flagFIN = 1 << iota
	flagSYN
	flagRST
	flagPSH
	flagACK
	flagURG
	flagECE
	flagCWR
)

const flagLetters = "FSRPAUEC"

// tcpPacket holds the fields of an IPv4/TCP packet that drop rules look at.
type tcpPacket struct {
	src, dst     netip.Addr
	sport, dport uint16
	seq, ack     uint32
	flags        uint8
	payloadLen   int
}

// parseIPv4Dst returns the destination address of any IPv4 packet; it picks
// the direction of non-TCP traffic too.
func parseIPv4Dst(b []byte) (netip.Addr, bool) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4([4]byte(b[16:20])), true
}

// parseTCP decodes an IPv4 packet carrying TCP. It reports false for anything
// else (IPv6, other protocols, fragments after the first, truncated headers).
func parseTCP(b []byte) (tcpPacket, bool) {
	if len(b) < 20 || b[0]>>4 != 4 || b[9] != 6 {
		return tcpPacket{}, false
	}
	ihl := int(b[0]&0x0f) * 4
	total := int(binary.BigEndian.Uint16(b[2:4]))
	fragOffset := binary.BigEndian.Uint16(b[6:8]) & 0x1fff
	if ihl < 20 || total < ihl+20 || total > len(b) || fragOffset != 0 {
		return tcpPacket{}, false
	}
	t := b[ihl:total]
	dataOffset := int(t[12]>>4) * 4
	if dataOffset < 20 || dataOffset > len(t) {
		return tcpPacket{}, false
	}
	return tcpPacket{
		src:        netip.AddrFrom4([4]byte(b[12:16])),
		dst:        netip.AddrFrom4([4]byte(b[16:20])),
		sport:      binary.BigEndian.Uint16(t[0:2]),
		dport:      binary.BigEndian.Uint16(t[2:4]),
		seq:        binary.BigEndian.Uint32(t[4:8]),
		ack:        binary.BigEndian.Uint32(t[8:12]),
		flags:      t[13],
		payloadLen: len(t) - dataOffset,
	}, true
}

// flagString renders flags tcpdump-style as letters, e.g. "SA", "PA", "FPA".
func flagString(flags uint8) string {
	s := make([]byte, 0, 8)
	for i := 0; i < 8; i++ {
		if flags&(1<<i) != 0 {
			s = append(s, flagLetters[i])
		}
	}
	return string(s)
}

func (p tcpPacket) has(flag uint8) bool { return p.flags&flag != 0 }

// isPureAck: an ACK carrying nothing else (no payload, no SYN/FIN/RST).
func (p tcpPacket) isPureAck() bool {
	return p.payloadLen == 0 && p.has(flagACK) && !p.has(flagSYN|flagFIN|flagRST)
}

// kind classifies a packet for the drop log: data, syn, synack, fin or ack.
func (p tcpPacket) kind() string {
	switch {
	case p.has(flagSYN) && p.has(flagACK):
		return "synack"
	case p.has(flagSYN):
		return "syn"
	case p.payloadLen > 0:
		return "data"
	case p.has(flagFIN):
		return "fin"
	case p.has(flagRST):
		return "rst"
	default:
		return "ack"
	}
}
