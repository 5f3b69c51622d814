package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestParseRule(t *testing.T) {
	cases := map[string]Rule{
		"s2c:offset=300000":    {Dir: "s2c", Kind: "offset", Offset: 300000, Times: 1},
		"s2c:offset=0:times=2": {Dir: "s2c", Kind: "offset", Offset: 0, Times: 2},
		"c2s:ack=5":            {Dir: "c2s", Kind: "ack", Nth: 5},
		"c2s:syn:times=2":      {Dir: "c2s", Kind: "syn", Times: 2},
		"s2c:synack":           {Dir: "s2c", Kind: "synack", Times: 1},
	}
	for text, want := range cases {
		got, err := ParseRule(text)
		if err != nil || got != want {
			t.Errorf("%s: got %+v %v, want %+v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "s2c", "up:offset=1", "s2c:offset", "s2c:offset=x", "c2s:ack", "c2s:ack=0",
		"s2c:synack=3", "s2c:offset=5:count=2", "s2c:bogus", "s2c:offset=-1"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestOptionsFromConfigAndFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	config := `{"delay_us": {"c2s": 25000, "s2c": 30000}, "jitter_us": {"c2s": 0, "s2c": 500},
		"drop_rules": [{"dir": "s2c", "kind": "offset", "offset": 300000, "times": 1}],
		"random_loss": null, "seed": 7}`
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseOptions([]string{"-config", path, "-delay-c2s-us", "1000", "-drop", "c2s:ack=3"})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		DelayUs:  map[string]int64{"c2s": 1000, "s2c": 30000},
		JitterUs: map[string]int64{"c2s": 0, "s2c": 500},
		DropRules: []Rule{{Dir: "s2c", Kind: "offset", Offset: 300000, Times: 1},
			{Dir: "c2s", Kind: "ack", Nth: 3}},
		Seed: 7,
	}
	if !reflect.DeepEqual(o.config, want) {
		t.Fatalf("got %+v\nwant %+v", o.config, want)
	}
}

// conn feeds a matcher the packets of one connection.
type conn struct {
	m                  *matcher
	clientISN, servISN uint32
}

func (c conn) s2c(offset int64, length int, flags uint8) string {
	rule, _ := c.m.judge(s2c, tcpPacket{src: serverAddr, dst: clientAddr, sport: 8080, dport: 40000,
		seq: c.servISN + 1 + uint32(offset), flags: flags, payloadLen: length})
	return rule
}

func (c conn) c2sAck() string {
	rule, _ := c.m.judge(c2s, tcpPacket{src: clientAddr, dst: serverAddr, sport: 40000, dport: 8080, flags: flagACK})
	return rule
}

func (c conn) handshake() {
	c.m.judge(c2s, tcpPacket{src: clientAddr, dst: serverAddr, sport: 40000, dport: 8080, seq: c.clientISN, flags: flagSYN})
	c.m.judge(s2c, tcpPacket{src: serverAddr, dst: clientAddr, sport: 8080, dport: 40000, seq: c.servISN, flags: flagSYN | flagACK})
}

func newTestMatcher(t *testing.T, rules ...string) *matcher {
	var parsed []Rule
	for _, text := range rules {
		r, err := ParseRule(text)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, r)
	}
	m, err := newMatcher(parsed, [2]float64{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOffsetRuleDropsFirstTransmissions(t *testing.T) {
	// An ISN near the top of the sequence space checks wrap-around.
	c := conn{m: newTestMatcher(t, "s2c:offset=3000:times=2"), clientISN: 5, servISN: 0xffffff00}
	c.handshake()
	if r := c.s2c(0, 1448, flagACK); r != "" {
		t.Fatalf("first segment dropped by %q", r)
	}
	if r := c.s2c(2896, 1448, flagACK); r != "offset 3000 #1" {
		t.Fatalf("first transmission: %q", r)
	}
	if r := c.s2c(4344, 1448, flagACK); r != "" {
		t.Fatalf("next segment dropped by %q", r)
	}
	// A retransmission that starts elsewhere but still covers the offset counts.
	if r := c.s2c(2000, 1448, flagACK); r != "offset 3000 #2" {
		t.Fatalf("second transmission: %q", r)
	}
	if r := c.s2c(2896, 1448, flagACK); r != "" {
		t.Fatalf("third transmission dropped by %q", r)
	}
	// Segment ends are exclusive: [3001, 4449) does not hold offset 3000.
	if r := c.s2c(3001, 1448, flagACK); r != "" {
		t.Fatalf("segment after the offset dropped by %q", r)
	}
}

func TestOffsetRuleNeedsHandshake(t *testing.T) {
	c := conn{m: newTestMatcher(t, "s2c:offset=0"), servISN: 100}
	if r := c.s2c(0, 100, flagACK); r != "" {
		t.Fatalf("dropped %q without a known ISN", r)
	}
}

func TestNewHandshakeReseedsISN(t *testing.T) {
	m := newTestMatcher(t, "s2c:offset=10")
	a := conn{m: m, servISN: 1000}
	a.handshake()
	b := conn{m: m, servISN: 5000}
	b.handshake()
	// Port reuse: offsets count from the latest SYN-ACK's ISN.
	if r := b.s2c(0, 100, flagACK); r != "offset 10 #1" {
		t.Fatalf("got %q", r)
	}
}

func TestAckRuleDropsNth(t *testing.T) {
	c := conn{m: newTestMatcher(t, "c2s:ack=3")}
	c.handshake()
	var got []string
	for i := 0; i < 5; i++ {
		got = append(got, c.c2sAck())
	}
	if want := []string{"", "", "ack #3", "", ""}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Data, FIN and SYN packets are no pure ACKs and do not count.
	c2 := conn{m: newTestMatcher(t, "s2c:ack=1")}
	if r := c2.s2c(0, 100, flagACK); r != "" {
		t.Fatalf("data dropped as ack: %q", r)
	}
	if r := c2.s2c(100, 0, flagFIN|flagACK); r != "" {
		t.Fatalf("fin dropped as ack: %q", r)
	}
	if r := c2.s2c(100, 0, flagACK); r != "ack #1" {
		t.Fatalf("pure ack: %q", r)
	}
}

func TestSynRules(t *testing.T) {
	m := newTestMatcher(t, "c2s:syn:times=2", "s2c:synack")
	syn := tcpPacket{src: clientAddr, dst: serverAddr, sport: 1, dport: 2, flags: flagSYN}
	synack := tcpPacket{src: serverAddr, dst: clientAddr, sport: 2, dport: 1, flags: flagSYN | flagACK}
	var got []string
	for _, p := range []tcpPacket{syn, syn, syn, synack, synack} {
		dir := c2s
		if p.has(flagACK) {
			dir = s2c
		}
		rule, _ := m.judge(dir, p)
		got = append(got, rule)
	}
	if want := []string{"syn #1", "syn #2", "", "synack #1", ""}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestRulesOnlyMatchTheirDirection(t *testing.T) {
	c := conn{m: newTestMatcher(t, "c2s:offset=0")}
	c.handshake()
	if r := c.s2c(0, 100, flagACK); r != "" {
		t.Fatalf("s2c packet dropped by c2s rule %q", r)
	}
}

func TestSeqRel(t *testing.T) {
	m := newTestMatcher(t)
	if _, rel := m.judge(s2c, tcpPacket{seq: 10, payloadLen: 1}); rel != nil {
		t.Fatalf("seq_rel %d before handshake", *rel)
	}
	m.judge(s2c, tcpPacket{seq: 0xfffffffe, flags: flagSYN | flagACK})
	if _, rel := m.judge(s2c, tcpPacket{seq: 0xffffffff, payloadLen: 1}); rel == nil || *rel != 1 {
		t.Fatalf("first data byte: seq_rel %v, want 1", rel)
	}
}

func TestRandomLossIsSeededAndSkipsControl(t *testing.T) {
	run := func(seed int64) []string {
		m, err := newMatcher(nil, [2]float64{0, 0.3}, seed)
		if err != nil {
			t.Fatal(err)
		}
		c := conn{m: m, servISN: 1}
		c.handshake()
		var rules []string
		for i := int64(0); i < 200; i++ {
			rules = append(rules, c.s2c(i*100, 100, flagACK))
			if r := c.s2c(0, 0, flagFIN|flagACK); r != "" {
				t.Fatalf("FIN dropped by %q", r)
			}
			if r := c.c2sAck(); r != "" {
				t.Fatalf("c2s dropped by %q", r)
			}
		}
		return rules
	}
	a, b := run(42), run(42)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different drops")
	}
	drops := 0
	for _, r := range a {
		if r != "" {
			drops++
			if r != "random p=0.3" {
				t.Fatalf("rule name %q", r)
			}
		}
	}
	if drops < 30 || drops > 90 {
		t.Fatalf("%d of 200 dropped at p=0.3", drops)
	}
	if _, err := newMatcher(nil, [2]float64{1.5, 0}, 1); err == nil {
		t.Fatal("probability 1.5 accepted")
	}
}

func TestScheduleKeepsFIFOUnderJitter(t *testing.T) {
	l := newDelayLine(shape{delay: 10 * time.Millisecond, jitter: 5 * time.Millisecond}, 3, 1)
	start := time.Unix(1000, 0)
	var last time.Time
	for i := 0; i < 1000; i++ {
		now := start.Add(time.Duration(i) * 100 * time.Microsecond)
		release, _ := l.schedule(now, 1500)
		if release.Before(last) {
			t.Fatalf("packet %d released before its predecessor", i)
		}
		if min, max := now.Add(10*time.Millisecond), now.Add(15*time.Millisecond); release.Before(min) {
			t.Fatalf("packet %d: release %v before arrival+delay", i, release.Sub(now))
		} else if release.After(max) && release != last {
			t.Fatalf("packet %d: release %v beyond delay+jitter without queueing", i, release.Sub(now))
		}
		last = release
	}
}

func TestScheduleExactWithoutJitter(t *testing.T) {
	l := newDelayLine(shape{delay: 25 * time.Millisecond}, 1, 1)
	now := time.Unix(1000, 0)
	if got, ok := l.schedule(now, 1500); !ok || got.Sub(now) != 25*time.Millisecond {
		t.Fatalf("delay %v", got.Sub(now))
	}
}

func TestBottleneckSerialisesAndDropsTail(t *testing.T) {
	// 80 kbit/s: a 100-byte packet takes 10 ms; the queue holds 250 bytes not
	// yet serialised, the packet on the wire included.
	l := newDelayLine(shape{delay: 5 * time.Millisecond, rateKbit: 80, queueBytes: 250}, 1, 8)
	now := time.Unix(1000, 0)
	var releases []time.Duration
	var dropped []int
	for i := 0; i < 5; i++ {
		if release, ok := l.schedule(now, 100); ok {
			releases = append(releases, release.Sub(now))
		} else {
			dropped = append(dropped, i)
		}
	}
	// The first goes on the wire at once and the second waits behind it; the
	// third would make 300 bytes: a burst of five loses its last three.
	want := []time.Duration{15 * time.Millisecond, 25 * time.Millisecond}
	if !reflect.DeepEqual(releases, want) || !reflect.DeepEqual(dropped, []int{2, 3, 4}) {
		t.Fatalf("releases %v, dropped %v", releases, dropped)
	}
	// Once the link has drained, a packet only waits for its own serialisation.
	later := now.Add(time.Second)
	if release, ok := l.schedule(later, 100); !ok || release.Sub(later) != 15*time.Millisecond {
		t.Fatalf("after draining: %v %v", release.Sub(later), ok)
	}
	stats := l.stats()
	if stats["extra"] != (delayStats{Packets: 3, SumUs: 40_000, MinUs: 10_000, MaxUs: 20_000}) || stats["queued"] != (delayStats{Packets: 3, SumUs: 10_000, MinUs: 0, MaxUs: 10_000}) {
		t.Fatalf("stats %+v", stats)
	}
}

func TestBatchReleasesTogetherAtTheNextMultiple(t *testing.T) {
	l := newDelayLine(shape{delay: 2 * time.Millisecond, batch: 10 * time.Millisecond}, 1, 1)
	base := time.Unix(1000, 0)
	for _, at := range []time.Duration{0, 3 * time.Millisecond, 7 * time.Millisecond} {
		if release, _ := l.schedule(base.Add(at), 60); release != base.Add(10*time.Millisecond) {
			t.Fatalf("arrival +%v released at +%v", at, release.Sub(base))
		}
	}
	if release, _ := l.schedule(base.Add(9*time.Millisecond), 60); release != base.Add(20*time.Millisecond) {
		t.Fatalf("next batch at +%v", release.Sub(base))
	}
}

func TestShapeFromConfigWithNulls(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	config := `{"rate_kbit": {"c2s": 64, "s2c": null}, "queue_bytes": {"c2s": 3000, "s2c": null}}`
	if err := os.WriteFile(path, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parseOptions([]string{"-config", path})
	if err != nil {
		t.Fatal(err)
	}
	rates, _ := perDirection(o.config.RateKbit)
	queues, _ := perDirection(o.config.QueueBytes)
	if rates != [2]int64{64, 0} || queues != [2]int64{3000, 0} {
		t.Fatalf("rates %v queues %v", rates, queues)
	}
}

// The steps on a clock whose sleeps overshoot as a loaded kernel's do: the long
// sleep's overshoot is corrected by the short one, which alone can be late.
func TestSleepInStepsCorrectsTheLongSleepsOvershoot(t *testing.T) {
	const overshoot = 250 * time.Microsecond
	var now time.Duration
	target := 5 * time.Millisecond
	var asked []time.Duration
	sleepInSteps(func() time.Duration { return target - now }, func(d time.Duration) {
		asked = append(asked, d)
		now += d + overshoot
	})
	want := []time.Duration{4700 * time.Microsecond, 50 * time.Microsecond}
	if !reflect.DeepEqual(asked, want) {
		t.Fatalf("asked to sleep %v, want %v", asked, want)
	}
	if late := now - target; late != overshoot {
		t.Fatalf("woke %v after the target, want the last sleep's overshoot %v", late, overshoot)
	}
}

func TestSleepUntilNeverWakesEarly(t *testing.T) {
	target := time.Now().Add(5 * time.Millisecond)
	sleepUntil(target)
	if early := time.Until(target); early > 0 {
		t.Fatalf("woke %v before the target", early)
	}
}

// How late the real sleep wakes depends on the machine's load: a benchmark
// (go test -bench SleepUntil ./lab/delayline), never early.
func BenchmarkSleepUntilLateness(b *testing.B) {
	var late time.Duration
	for i := 0; i < b.N; i++ {
		target := time.Now().Add(5 * time.Millisecond)
		sleepUntil(target)
		l := time.Since(target)
		if l < 0 {
			b.Fatalf("woke %v before the target", -l)
		}
		late += l
	}
	b.ReportMetric(float64(late.Microseconds())/float64(b.N), "us-late/op")
}
