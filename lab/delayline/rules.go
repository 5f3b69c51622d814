package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// direction of a packet: c2s goes towards the server subnet, s2c towards the
// client subnet.
type direction int

const (
	c2s direction = iota
	s2c
)

func (d direction) String() string { return [...]string{"c2s", "s2c"}[d] }

func parseDirection(s string) (direction, error) {
	switch s {
	case "c2s":
		return c2s, nil
	case "s2c":
		return s2c, nil
	}
	return 0, fmt.Errorf("direction %q: want c2s or s2c", s)
}

// Rule is one deterministic drop rule. Its JSON form is the one the lab
// records in truth.json:
//
//	{"dir":"s2c","kind":"offset","offset":300000,"times":1}
//	{"dir":"c2s","kind":"ack","nth":5}
//	{"dir":"c2s","kind":"syn","times":2}
//	{"dir":"s2c","kind":"synack","times":1}
type Rule struct {
	Dir    string `json:"dir"`
	Kind   string `json:"kind"`
	Offset int64  `json:"offset"` // offset: byte offset counted from ISN+1
	Times  int    `json:"times"`  // offset, syn, synack: drop this many transmissions
	Nth    int    `json:"nth"`    // ack: drop the nth pure ACK
}

// ParseRule reads the flag form DIR:KIND[=VALUE][:times=K], e.g.
// "s2c:offset=300000:times=2", "c2s:ack=5", "c2s:syn:times=2", "s2c:synack".
func ParseRule(text string) (Rule, error) {
	fields := strings.Split(text, ":")
	if len(fields) < 2 {
		return Rule{}, fmt.Errorf("rule %q: want DIR:KIND[=VALUE][:times=K]", text)
	}
	r := Rule{Dir: fields[0]}
	kind, value, hasValue := strings.Cut(fields[1], "=")
	r.Kind = kind
	if hasValue {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return Rule{}, fmt.Errorf("rule %q: bad number %q", text, value)
		}
		switch kind {
		case "offset":
			r.Offset = n
		case "ack":
			r.Nth = int(n)
		default:
			return Rule{}, fmt.Errorf("rule %q: kind %s takes no value", text, kind)
		}
	}
	for _, option := range fields[2:] {
		key, value, _ := strings.Cut(option, "=")
		n, err := strconv.Atoi(value)
		if key != "times" || err != nil {
			return Rule{}, fmt.Errorf("rule %q: unknown option %q (only times=K)", text, option)
		}
		r.Times = n
	}
	if kind == "offset" && !hasValue {
		return Rule{}, fmt.Errorf("rule %q: offset needs a value, e.g. offset=300000", text)
	}
	return r.normalized()
}

// normalized checks a rule and fills the default of one transmission.
func (r Rule) normalized() (Rule, error) {
	if _, err := parseDirection(r.Dir); err != nil {
		return r, err
	}
	switch r.Kind {
	case "offset", "syn", "synack":
		if r.Times == 0 {
			r.Times = 1
		}
		if r.Times < 0 || r.Offset < 0 {
			return r, fmt.Errorf("%s rule: offset and times must not be negative", r.Kind)
		}
	case "ack":
		if r.Nth < 1 {
			return r, fmt.Errorf("ack rule: nth must be >= 1")
		}
	default:
		return r, fmt.Errorf("rule kind %q: want offset, ack, syn or synack", r.Kind)
	}
	return r, nil
}

// matches reports whether p counts towards the rule (before deciding to drop).
func (r Rule) matches(p tcpPacket, flow *flowState) bool {
	switch r.Kind {
	case "offset":
		if !flow.isnKnown || p.payloadLen == 0 || p.has(flagSYN) {
			return false
		}
		// Offsets wrap with the 32-bit sequence space.
		start := int64(p.seq - flow.isn - 1)
		return r.Offset >= start && r.Offset < start+int64(p.payloadLen)
	case "ack":
		return p.isPureAck()
	case "syn":
		return p.has(flagSYN) && !p.has(flagACK)
	case "synack":
		return p.has(flagSYN) && p.has(flagACK)
	}
	return false
}

// dropsHit says whether the hit-th matching packet is dropped, and names it.
func (r Rule) dropsHit(hit int) (string, bool) {
	switch r.Kind {
	case "offset":
		return fmt.Sprintf("offset %d #%d", r.Offset, hit), hit <= r.Times
	case "ack":
		return fmt.Sprintf("ack #%d", hit), hit == r.Nth
	default:
		return fmt.Sprintf("%s #%d", r.Kind, hit), hit <= r.Times
	}
}

// Config is the JSON config file; flags given on the command line override it.
type Config struct {
	DelayUs    map[string]int64   `json:"delay_us"`
	JitterUs   map[string]int64   `json:"jitter_us"`
	DropRules  []Rule             `json:"drop_rules"`
	RandomLoss map[string]float64 `json:"random_loss"`
	Seed       int64              `json:"seed"`
	RateKbit   map[string]int64   `json:"rate_kbit"`
	QueueBytes map[string]int64   `json:"queue_bytes"`
	BatchUs    map[string]int64   `json:"batch_us"`
}

func loadConfig(path string) (Config, error) {
	var c Config
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// perDirection turns a {"c2s": x, "s2c": y} map into an array indexed by direction.
func perDirection[T any](m map[string]T) ([2]T, error) {
	var out [2]T
	for key, value := range m {
		d, err := parseDirection(key)
		if err != nil {
			return out, err
		}
		out[d] = value
	}
	return out, nil
}

type flowKey struct {
	src, dst     netip.Addr
	sport, dport uint16
}

// flowState is what the matcher remembers about one direction of one connection.
type flowState struct {
	isn      uint32
	isnKnown bool
	hits     []int // per rule: matching packets seen so far
}

// matcher decides which packets to drop.
type matcher struct {
	rules []Rule
	dirs  []direction
	loss  [2]float64
	rng   *rand.Rand
	flows map[flowKey]*flowState
}

func newMatcher(rules []Rule, loss [2]float64, seed int64) (*matcher, error) {
	m := &matcher{loss: loss, rng: rand.New(rand.NewSource(seed)), flows: map[flowKey]*flowState{}}
	for _, r := range rules {
		r, err := r.normalized()
		if err != nil {
			return nil, err
		}
		d, _ := parseDirection(r.Dir)
		m.rules = append(m.rules, r)
		m.dirs = append(m.dirs, d)
	}
	for _, p := range loss {
		if p < 0 || p > 1 {
			return nil, fmt.Errorf("random loss %g: want a probability in [0,1]", p)
		}
	}
	return m, nil
}

func (m *matcher) flow(p tcpPacket) *flowState {
	key := flowKey{p.src, p.dst, p.sport, p.dport}
	f := m.flows[key]
	if f == nil {
		f = &flowState{hits: make([]int, len(m.rules))}
		m.flows[key] = f
	}
	return f
}

// judge updates the per-flow state with p and returns the name of the rule
// that drops it, or "" to forward it. It also returns the sequence number
// relative to the direction's ISN, or nil while the ISN is unknown.
func (m *matcher) judge(dir direction, p tcpPacket) (string, *int64) {
	flow := m.flow(p)
	if p.has(flagSYN) {
		flow.isn, flow.isnKnown = p.seq, true
	}
	var seqRel *int64
	if flow.isnKnown {
		rel := int64(p.seq - flow.isn)
		seqRel = &rel
	}
	dropper := ""
	for i, r := range m.rules {
		if m.dirs[i] != dir || !r.matches(p, flow) {
			continue
		}
		flow.hits[i]++
		if name, drop := r.dropsHit(flow.hits[i]); drop && dropper == "" {
			dropper = name
		}
	}
	eligible := p.payloadLen > 0 && !p.has(flagSYN|flagFIN|flagRST)
	if dropper == "" && eligible && m.loss[dir] > 0 && m.rng.Float64() < m.loss[dir] {
		dropper = fmt.Sprintf("random p=%g", m.loss[dir])
	}
	return dropper, seqRel
}
