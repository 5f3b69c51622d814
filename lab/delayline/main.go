// Command delayline is the critpath trace lab's userspace link emulator. It
// reads the packets the router namespace routes into a TUN device, delays each
// direction by a fixed one-way delay (plus optional jitter that never
// reorders), optionally serialises it at a bottleneck rate behind a drop-tail
// queue or releases it in batches, drops packets chosen by deterministic rules
// or seeded random loss, and writes the rest back into the device. Every drop
// is logged as a JSON line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const usage = `usage: delayline [flags]

Delays and drops the IPv4 packets routed through a TUN device. Direction c2s is
traffic towards -server-net, s2c traffic towards -client-net.

Drop rules (-drop, repeatable) have the form DIR:KIND[=VALUE][:times=K]:
  s2c:offset=300000:times=2  drop the first 2 transmissions of the data segment
                             holding byte offset 300000 (counted from ISN+1)
  c2s:ack=5                  drop the 5th pure ACK
  c2s:syn:times=2            drop the first 2 SYNs
  s2c:synack                 drop the first SYN-ACK
The same settings can come from a JSON file (-config), e.g.
  {"delay_us": {"c2s": 25000, "s2c": 25000}, "jitter_us": {"c2s": 0, "s2c": 0},
   "drop_rules": [{"dir": "s2c", "kind": "offset", "offset": 300000, "times": 1}],
   "random_loss": {"s2c": 0.01}, "seed": 7,
   "rate_kbit": {"c2s": 64, "s2c": 0}, "queue_bytes": {"c2s": 3000, "s2c": 0},
   "batch_us": {"c2s": 0, "s2c": 0}}
rate_kbit makes a direction a bottleneck link (IP bytes serialised at that rate
behind a drop-tail queue of queue_bytes; drops logged with rule "queue");
batch_us releases a direction's packets together at the next multiple of
batch_us on the wall clock. Both only come from the file (0 or null: off).
Flags given explicitly override the file; -drop rules are added to its rules.

Prints "delayline: ready" on stderr once attached; on SIGTERM or SIGINT writes
a summary line to the log and exits.

Flags:
`

type dropEvent struct {
	TsUs   int64  `json:"ts_us"`
	Dir    string `json:"dir"`
	Src    string `json:"src"`
	Sport  uint16 `json:"sport"`
	Dst    string `json:"dst"`
	Dport  uint16 `json:"dport"`
	Seq    uint32 `json:"seq"`
	SeqRel *int64 `json:"seq_rel"`
	Len    int    `json:"len"`
	Flags  string `json:"flags"`
	Rule   string `json:"rule"`
	Kind   string `json:"kind"`
}

type summaryEvent struct {
	Summary      bool                             `json:"summary"`
	Forwarded    map[string]int64                 `json:"forwarded"`
	Dropped      map[string]int64                 `json:"dropped"`
	ExtraDelay   map[string]map[string]delayStats `json:"extra_delay"`
	Unclassified int64                            `json:"unclassified"`
	WriteErrors  int64                            `json:"write_errors"`
}

// eventLog writes JSON lines; the reader and the signal handler share it.
type eventLog struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (l *eventLog) write(v any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, "delayline: log:", err)
	}
}

type ruleFlags []string

func (r *ruleFlags) String() string     { return strings.Join(*r, " ") }
func (r *ruleFlags) Set(s string) error { *r = append(*r, s); return nil }

type options struct {
	tun                  string
	clientNet, serverNet netip.Prefix
	config               Config
	logPath              string
}

func parseOptions(args []string) (options, error) {
	fs := flag.NewFlagSet("delayline", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage); fs.PrintDefaults() }
	var o options
	var drops ruleFlags
	var clientNet, serverNet, configPath string
	var delayC2S, delayS2C, jitterC2S, jitterS2C, seed int64
	var lossC2S, lossS2C float64
	fs.StringVar(&o.tun, "tun", "tun0", "TUN device to attach to (must exist, e.g. ip tuntap add dev tun0 mode tun)")
	fs.StringVar(&clientNet, "client-net", "10.71.1.0/24", "client subnet: packets to it travel s2c")
	fs.StringVar(&serverNet, "server-net", "10.71.2.0/24", "server subnet: packets to it travel c2s")
	fs.StringVar(&configPath, "config", "", "JSON config file (see above)")
	fs.Int64Var(&delayC2S, "delay-c2s-us", 0, "one-way delay towards the server, microseconds")
	fs.Int64Var(&delayS2C, "delay-s2c-us", 0, "one-way delay towards the client, microseconds")
	fs.Int64Var(&jitterC2S, "jitter-c2s-us", 0, "extra uniform 0..J microseconds towards the server")
	fs.Int64Var(&jitterS2C, "jitter-s2c-us", 0, "extra uniform 0..J microseconds towards the client")
	fs.Float64Var(&lossC2S, "loss-c2s", 0, "random loss probability of data packets towards the server")
	fs.Float64Var(&lossS2C, "loss-s2c", 0, "random loss probability of data packets towards the client")
	fs.Int64Var(&seed, "seed", 1, "seed of random loss and jitter")
	fs.Var(&drops, "drop", "drop rule DIR:KIND[=VALUE][:times=K] (repeatable)")
	fs.StringVar(&o.logPath, "log", "-", "file to append drop and summary JSON lines to (- for stdout)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.clientNet, err = netip.ParsePrefix(clientNet); err != nil {
		return o, err
	}
	if o.serverNet, err = netip.ParsePrefix(serverNet); err != nil {
		return o, err
	}
	if configPath != "" {
		if o.config, err = loadConfig(configPath); err != nil {
			return o, err
		}
	}
	c := &o.config
	setIn := func(m *map[string]int64, key string, v int64) {
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[key] = v
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "delay-c2s-us":
			setIn(&c.DelayUs, "c2s", delayC2S)
		case "delay-s2c-us":
			setIn(&c.DelayUs, "s2c", delayS2C)
		case "jitter-c2s-us":
			setIn(&c.JitterUs, "c2s", jitterC2S)
		case "jitter-s2c-us":
			setIn(&c.JitterUs, "s2c", jitterS2C)
		case "loss-c2s", "loss-s2c":
			if c.RandomLoss == nil {
				c.RandomLoss = map[string]float64{}
			}
			c.RandomLoss["c2s"], c.RandomLoss["s2c"] = lossC2S, lossS2C
		case "seed":
			c.Seed = seed
		}
	})
	for _, text := range drops {
		r, err := ParseRule(text)
		if err != nil {
			return o, err
		}
		c.DropRules = append(c.DropRules, r)
	}
	return o, nil
}

func main() {
	// The reader and both release goroutines spend their lives in blocking
	// syscalls (read, nanosleep). Spare Ps let each of them run the moment its
	// syscall returns instead of waiting for sysmon to hand one over (up to ms).
	runtime.GOMAXPROCS(max(16, runtime.NumCPU()))
	o, err := parseOptions(os.Args[1:])
	if err == flag.ErrHelp {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "delayline:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "delayline:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	delays, err := perDirection(o.config.DelayUs)
	if err != nil {
		return err
	}
	jitters, err := perDirection(o.config.JitterUs)
	if err != nil {
		return err
	}
	loss, err := perDirection(o.config.RandomLoss)
	if err != nil {
		return err
	}
	rates, err := perDirection(o.config.RateKbit)
	if err != nil {
		return err
	}
	queues, err := perDirection(o.config.QueueBytes)
	if err != nil {
		return err
	}
	batches, err := perDirection(o.config.BatchUs)
	if err != nil {
		return err
	}
	for d := range rates {
		if rates[d] < 0 || queues[d] < 0 || batches[d] < 0 || (rates[d] > 0 && queues[d] == 0) {
			return fmt.Errorf("%s: rate_kbit, queue_bytes and batch_us must not be negative, and a rate needs a queue", direction(d))
		}
	}
	m, err := newMatcher(o.config.DropRules, loss, o.config.Seed)
	if err != nil {
		return err
	}
	var out io.Writer = os.Stdout
	if o.logPath != "-" {
		f, err := os.OpenFile(o.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		out = f
	}
	log := &eventLog{enc: json.NewEncoder(out)}
	fd, err := openTun(o.tun)
	if err != nil {
		return err
	}

	var forwarded, dropped [2]atomic.Int64
	var unclassified, writeErrors atomic.Int64
	writePacket := func(pkt []byte) bool {
		if _, err := syscall.Write(fd, pkt); err != nil {
			if writeErrors.Add(1) == 1 {
				fmt.Fprintln(os.Stderr, "delayline: write:", err)
			}
			return false
		}
		return true
	}
	var lines [2]*delayLine
	for _, d := range []direction{c2s, s2c} {
		lines[d] = newDelayLine(shape{
			delay: time.Duration(delays[d]) * time.Microsecond, jitter: time.Duration(jitters[d]) * time.Microsecond,
			rateKbit: rates[d], queueBytes: queues[d], batch: time.Duration(batches[d]) * time.Microsecond,
		}, o.config.Seed+int64(d)+1, 1<<16)
		go lines[d].run(func(pkt []byte) {
			if writePacket(pkt) {
				forwarded[d].Add(1)
			}
		})
	}

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		counts := func(c *[2]atomic.Int64) map[string]int64 {
			return map[string]int64{"c2s": c[c2s].Load(), "s2c": c[s2c].Load()}
		}
		extra := map[string]map[string]delayStats{"c2s": lines[c2s].stats(), "s2c": lines[s2c].stats()}
		log.write(summaryEvent{true, counts(&forwarded), counts(&dropped), extra, unclassified.Load(), writeErrors.Load()})
		os.Exit(0)
	}()

	fmt.Fprintf(os.Stderr, "delayline: ready on %s, c2s %+v, s2c %+v, %d drop rules, loss c2s %g s2c %g\n",
		o.tun, lines[c2s].shape, lines[s2c].shape, len(m.rules), loss[c2s], loss[s2c])

	buf := make([]byte, 65536)
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", o.tun, err)
		}
		now := time.Now()
		pkt := append([]byte(nil), buf[:n]...)
		dst, ok := parseIPv4Dst(pkt)
		var dir direction
		switch {
		case ok && o.serverNet.Contains(dst):
			dir = c2s
		case ok && o.clientNet.Contains(dst):
			dir = s2c
		default:
			// Not ours to delay (e.g. IPv6): pass it straight through.
			unclassified.Add(1)
			writePacket(pkt)
			continue
		}
		tcp, isTCP := parseTCP(pkt)
		var seqRel *int64
		if isTCP {
			var rule string
			if rule, seqRel = m.judge(dir, tcp); rule != "" {
				dropped[dir].Add(1)
				log.write(newDropEvent(now, dir, tcp, seqRel, rule))
				continue
			}
		}
		if reason := lines[dir].enqueue(pkt, now); reason != "" {
			dropped[dir].Add(1)
			if isTCP {
				log.write(newDropEvent(now, dir, tcp, seqRel, reason))
			}
		}
	}
}

func newDropEvent(now time.Time, dir direction, p tcpPacket, seqRel *int64, rule string) dropEvent {
	return dropEvent{
		TsUs: now.UnixMicro(), Dir: dir.String(),
		Src: p.src.String(), Sport: p.sport, Dst: p.dst.String(), Dport: p.dport,
		Seq: p.seq, SeqRel: seqRel, Len: p.payloadLen, Flags: flagString(p.flags),
		Rule: rule, Kind: p.kind(),
	}
}
