package main

import (
	"math/rand"
	"runtime"
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

// delayLine delays the packets of one direction. Release times never decrease
// (release = max(arrival+delay+jitter, previous release)), so a FIFO channel is
// also a time-ordered queue and jitter cannot reorder packets.
type delayLine struct {
	delay, jitter time.Duration
	rng           *rand.Rand
	last          time.Time
	queue         chan queued
}

func newDelayLine(delay, jitter time.Duration, seed int64, capacity int) *delayLine {
	return &delayLine{delay: delay, jitter: jitter, rng: rand.New(rand.NewSource(seed)), queue: make(chan queued, capacity)}
}

// schedule returns the release time of a packet that arrived at now.
func (l *delayLine) schedule(now time.Time) time.Time {
	release := now.Add(l.delay)
	if l.jitter > 0 {
		release = release.Add(time.Duration(l.rng.Int63n(int64(l.jitter/time.Microsecond)+1)) * time.Microsecond)
	}
	if release.Before(l.last) {
		release = l.last
	}
	l.last = release
	return release
}

// enqueue schedules pkt; it reports false when the queue is full.
func (l *delayLine) enqueue(pkt []byte, now time.Time) bool {
	select {
	case l.queue <- queued{pkt, l.schedule(now)}:
		return true
	default:
		return false
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
	if rest := time.Until(target); rest > time.Millisecond {
		nanosleep(rest - 300*time.Microsecond)
	}
	if rest := time.Until(target); rest > 0 {
		nanosleep(rest)
	}
}

func nanosleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
