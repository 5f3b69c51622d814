package main

import (
	"math/rand"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// wakeLatency is how late a nanosleep on this kind of machine typically
// returns; sleeping that much less centres the release on its target.
const wakeLatency = 20 * time.Microsecond

type queued struct {
	pkt     []byte
	release time.Time
}

// shape is what one direction of the emulated path does to its packets.
type shape struct {
	delay, jitter time.Duration
	// rateKbit > 0 makes the direction a bottleneck link: packets are
	// serialised at this rate (IP bytes) behind a drop-tail queue of
	// queueBytes, before the delay.
	rateKbit, queueBytes int64
	// batch > 0 holds packets and releases them together at the next multiple
	// of batch on the wall clock (ACK compression).
	batch time.Duration
}

// delayLine delays the packets of one direction. Release times never decrease
// (release = max(departure+delay+jitter, previous release)), so a FIFO channel
// is also a time-ordered queue and jitter cannot reorder packets.
type delayLine struct {
	shape
	rng      *rand.Rand
	last     time.Time
	linkFree time.Time // when the bottleneck link finishes serialising what it holds
	queue    chan queued

	mu     sync.Mutex // the reader records, the summary reads
	extra  delayStats // beyond the delay: bottleneck wait and serialisation, jitter, holding back for order, batching
	queued delayStats // waiting behind other packets at the bottleneck
}

// delayStats summarises extra delays in µs for the summary line.
type delayStats struct {
	Packets int64 `json:"packets"`
	SumUs   int64 `json:"sum_us"`
	MinUs   int64 `json:"min_us"`
	MaxUs   int64 `json:"max_us"`
}

func (s *delayStats) add(d time.Duration) {
	us := d.Microseconds()
	if s.Packets == 0 || us < s.MinUs {
		s.MinUs = us
	}
	s.Packets++
	s.SumUs += us
	s.MaxUs = max(s.MaxUs, us)
}

// stats returns the extra delays so far.
func (l *delayLine) stats() map[string]delayStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return map[string]delayStats{"extra": l.extra, "queued": l.queued}
}

func newDelayLine(s shape, seed int64, capacity int) *delayLine {
	return &delayLine{shape: s, rng: rand.New(rand.NewSource(seed)), queue: make(chan queued, capacity)}
}

// schedule returns the release time of a packet of size IP bytes that arrived
// at now; false when the bottleneck's queue has no room for it.
func (l *delayLine) schedule(now time.Time, size int) (time.Time, bool) {
	departure := now
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rateKbit > 0 {
		if waiting := l.linkFree.Sub(now); waiting > 0 && int64(waiting)*l.rateKbit/8e6+int64(size) > l.queueBytes {
			return time.Time{}, false
		}
		if l.linkFree.After(now) {
			departure = l.linkFree
		}
		l.queued.add(departure.Sub(now))
		departure = departure.Add(time.Duration(int64(size) * 8e6 / l.rateKbit))
		l.linkFree = departure
	}
	release := departure.Add(l.delay)
	if l.jitter > 0 {
		release = release.Add(time.Duration(l.rng.Int63n(int64(l.jitter/time.Microsecond)+1)) * time.Microsecond)
	}
	if l.batch > 0 {
		release = time.Unix(0, (release.UnixNano()+int64(l.batch)-1)/int64(l.batch)*int64(l.batch))
	}
	if release.Before(l.last) {
		release = l.last
	}
	l.last = release
	l.extra.add(release.Sub(now.Add(l.delay)))
	return release, true
}

// enqueue schedules pkt; it returns the reason when it drops it instead.
func (l *delayLine) enqueue(pkt []byte, now time.Time) string {
	release, ok := l.schedule(now, len(pkt))
	if !ok {
		return "queue"
	}
	select {
	case l.queue <- queued{pkt, release}:
		return ""
	default:
		return "delay line full"
	}
}

// run releases queued packets on time. It owns an OS thread with a small timer
// slack because Go's own timers only wake with millisecond granularity here.
func (l *delayLine) run(write func([]byte)) {
	runtime.LockOSThread()
	const prSetTimerslack = 29
	syscall.Syscall(syscall.SYS_PRCTL, prSetTimerslack, 1000, 0)
	for q := range l.queue {
		sleepUntil(q.release.Add(-wakeLatency))
		write(q.pkt)
	}
}

// sleepUntil sleeps in two steps: a long nanosleep that ends shortly before
// the target, then a short one that corrects the first one's error.
func sleepUntil(target time.Time) {
	sleepInSteps(func() time.Duration { return time.Until(target) }, nanosleep)
}

// sleepInSteps is sleepUntil with the time left and the sleep given, so that
// its steps can be checked without the scheduler's lateness.
func sleepInSteps(rest func() time.Duration, sleep func(time.Duration)) {
	if r := rest(); r > time.Millisecond {
		sleep(r - 300*time.Microsecond)
	}
	if r := rest(); r > 0 {
		sleep(r)
	}
}

func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
