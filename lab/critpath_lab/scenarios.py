"""The scenario table. Scenario names are a contract with the Java tests."""

import random
from dataclasses import dataclass, field, replace

from endpoints.httpwire import object_path, request_bytes, response_size

CLIENT_ADDR = "10.71.1.2"
SERVER_ADDR = "10.71.2.2"
MS = 1000  # microseconds


def both(value):
    return {"c2s": value, "s2c": value}


@dataclass(frozen=True)
class Exchange:
    """One request and its response."""
    size: int                    # response body bytes
    think_ms: float = 0          # server think time before the first response byte
    stalls: tuple = ()           # (after response bytes on the wire, stall ms) pairs
    pause_ms: float = 0          # client pause before sending the request
    write_size: int | None = None  # server bytes per send (server default when None)

    def target(self):
        return object_path(self.size, self.think_ms, self.stalls, self.write_size)


@dataclass(frozen=True)
class ConnectionPlan:
    exchanges: tuple
    http: str = "1.0"
    rcvbuf: int | None = None        # client SO_RCVBUF, set before connect
    read_size: int | None = None     # client bytes per recv when reading slowly
    read_sleep_ms: float = 0         # client sleep after each recv
    delay_us: dict | None = None     # overrides the scenario's delay for this connection
    drop_rules: tuple | None = None  # overrides the scenario's drop rules for this connection

    def stream_bytes(self):
        """Bytes each direction carries: requests c2s, responses s2c."""
        close = self.http == "1.0"
        return {
            "c2s": sum(len(request_bytes(e.target(), self.http, SERVER_ADDR)) for e in self.exchanges),
            "s2c": sum(response_size(self.http, e.size, close) for e in self.exchanges),
        }


def download(size, **exchange):
    """A single HTTP/1.0 download."""
    return (ConnectionPlan((Exchange(size, **exchange),)),)


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    connections: tuple                   # ConnectionPlans, run one after another
    delay_us: dict | None = field(default_factory=lambda: both(30 * MS))
    jitter_us: dict = field(default_factory=lambda: both(0))
    rate_kbit: dict = field(default_factory=lambda: both(None))
    queue_bytes: dict = field(default_factory=lambda: both(None))
    batch_us: dict = field(default_factory=lambda: both(0))  # release in batches (ACK compression)
    server_link_kbit: int | None = None  # the server's own link (tbf on its eth0, below its capture point)
    cc: str = "reno"
    sack: bool = False
    timestamps: bool = True
    initcwnd: int = 10
    early_retrans: int = 3               # net.ipv4.tcp_early_retrans: 3 (Linux default) allows tail loss probes
    offload: bool = False
    client_quickack: bool = False        # client route "quickack 1": no delayed ACKs
    server_clock_offset_us: int = 0
    drop_rules: tuple | None = ()
    random_loss: dict | None = None
    seed: int | None = None
    fixture: bool = True                 # part of testdata/lab
    client_timeout_s: float = 120
    # (fact, low, high or None) checked after each run, see truth.total:
    # "drops" or a path into the connections' "kernel" object, summed.
    expect: tuple = ()
    notes: str = ""                      # why parameters differ from the first idea

    def delayline_config(self, delay_us, drop_rules, jitter_us=None, random_loss=True):
        """The delay line's JSON config for one connection (see lab/delayline -h)."""
        return {"delay_us": delay_us, "jitter_us": jitter_us or self.jitter_us, "drop_rules": drop_rules,
                "random_loss": self.random_loss if random_loss else None, "seed": self.seed or 1,
                "rate_kbit": self.rate_kbit, "queue_bytes": self.queue_bytes, "batch_us": self.batch_us}

    def config(self):
        """The "config" object of truth.json, drop rules as written (offset may be "last")."""
        return {
            "delay_us": self.delay_us, "jitter_us": self.jitter_us,
            "rate_kbit": self.rate_kbit, "queue_bytes": self.queue_bytes, "batch_us": self.batch_us,
            "server_link_kbit": self.server_link_kbit, "cc": self.cc, "sack": self.sack, "timestamps": self.timestamps,
            "initcwnd": self.initcwnd, "early_retrans": self.early_retrans, "offload": self.offload,
            "server_clock_offset_us": self.server_clock_offset_us,
            "drop_rules": None if self.drop_rules is None else list(self.drop_rules),
            "random_loss": self.random_loss, "seed": self.seed,
        }


def random_batch(seed, count=40):
    """Connections with random think time, delay, size and (half of them) one s2c drop."""
    rng = random.Random(seed)
    plans = []
    for _ in range(count):
        exchange = Exchange(size=rng.randint(2_000, 200_000), think_ms=rng.randint(0, 200))
        plan = ConnectionPlan((exchange,), delay_us=both(rng.randint(10, 50) * MS), drop_rules=())
        if rng.random() < 0.5:
            offset = rng.randrange(plan.stream_bytes()["s2c"])
            plan = replace(plan, drop_rules=({"dir": "s2c", "kind": "offset", "offset": offset, "times": 1},))
        plans.append(plan)
    return tuple(plans)


# No drop anywhere and nothing retransmitted.
NO_LOSS = (("drops", 0, 0), ("server.TcpRetransSegs", 0, 0), ("client.TcpRetransSegs", 0, 0))


def drop_first(direction, offset, times=1):
    """Drops the first `times` transmissions of the segment holding byte `offset`."""
    return ({"dir": direction, "kind": "offset", "offset": offset, "times": times},)


FAST_RETRANSMIT = Scenario(
    "fast-retransmit",
    "500 KB, 25 ms, first transmission of the s2c segment holding byte 300000 dropped: "
    "three duplicate ACKs, one fast retransmit (Reno recovery, no SACK)",
    download(500_000), delay_us=both(25 * MS), drop_rules=drop_first("s2c", 300_000),
    expect=(("drops", 1, 1), ("server.TcpRetransSegs", 1, 1), ("server.TcpExtTCPFastRetrans", 1, 1),
            ("server.TcpExtTCPRenoRecovery", 1, 1), ("server.TcpExtTCPTimeouts", 0, 0)))

TAIL_TIMEOUT = Scenario(
    "tail-timeout",
    "20 KB, 25 ms, first transmission of the segment holding the last response byte dropped: "
    "no duplicate ACKs follow, so the retransmission timer fires",
    download(20_000), delay_us=both(25 * MS), drop_rules=drop_first("s2c", "last"),
    expect=(("drops", 1, 1), ("server.TcpExtTCPTimeouts", 1, 1), ("server.TcpExtTCPFastRetrans", 0, 0)))

CLOCK_OFFSET = Scenario(
    "clock-offset",
    "dl-20k at 30 ms with the server capture's clock 1.5 s ahead (unsynchronised sensors)",
    download(20_000), server_clock_offset_us=1_500_000, expect=NO_LOSS)

SCENARIOS = (
    Scenario("dl-1k", "1 KB HTTP/1.0 download, 30 ms one-way delay, no loss", download(1_000), expect=NO_LOSS),
    Scenario("dl-20k", "20 KB HTTP/1.0 download, 30 ms one-way delay, no loss", download(20_000),
             expect=NO_LOSS),
    Scenario("dl-500k", "500 KB HTTP/1.0 download, 30 ms one-way delay, no loss", download(500_000),
             expect=NO_LOSS),
    Scenario("think-100ms", "1 KB with 100 ms server think time, 20 ms one-way delay",
             download(1_000, think_ms=100), delay_us=both(20 * MS), expect=NO_LOSS),
    FAST_RETRANSMIT,
    TAIL_TIMEOUT,
    Scenario("backoff",
             "1 KB (one response segment), 25 ms, its first two transmissions dropped: "
             "retransmission timeout, then a backed-off (doubled) timeout",
             download(1_000), delay_us=both(25 * MS), drop_rules=drop_first("s2c", "last", times=2),
             expect=(("drops", 2, 2), ("server.TcpExtTCPTimeouts", 2, 2))),
    Scenario("bottleneck-4mbit",
             "500 KB, 20 ms, s2c limited to 4 Mbit/s with a deep (400 KB) queue: slow start builds "
             "a standing queue of up to ~250 KB, about 0.5 s of queuing delay, without loss",
             download(500_000), delay_us=both(20 * MS),
             rate_kbit={"c2s": None, "s2c": 4_000}, queue_bytes={"c2s": None, "s2c": 400_000},
             expect=NO_LOSS,
             notes="A 150 KB queue overflowed in slow start (66 drops, Reno recovery), so the "
                   "queue is 400 KB: the point is queuing delay; shallow-queue is the overflowing one."),
    Scenario("shallow-queue",
             "500 KB, 20 ms, s2c limited to 4 Mbit/s with a shallow (30 KB) queue: slow start "
             "overflows it, the queue drops data in bursts and the server recovers by fast retransmits, "
             "and by timeouts where Reno's recovery cannot repair a window's losses",
             download(500_000), delay_us=both(20 * MS),
             rate_kbit={"c2s": None, "s2c": 4_000}, queue_bytes={"c2s": None, "s2c": 30_000},
             expect=(("drops.data", 1, None), ("drops.ack", 0, 0), ("server.TcpExtTCPFastRetrans", 1, None))),
    Scenario("slow-uplink",
             "500 KB, 20 ms, s2c 20 Mbit/s (150 KB queue), ACK direction 64 kbit/s with a 3 KB queue: "
             "ACKs are delayed and many dropped at the uplink queue (asymmetric network); the "
             "client's FIN may be dropped there too and come again after an RTO",
             download(500_000), delay_us=both(20 * MS),
             rate_kbit={"c2s": 64, "s2c": 20_000}, queue_bytes={"c2s": 3_000, "s2c": 150_000},
             expect=(("drops.ack", 1, None), ("drops.data", 0, 0), ("server.TcpRetransSegs", 0, 0))),
    Scenario("uplink-ack-loss",
             "500 KB, 20 ms, ACK direction 64 kbit/s with a 500-byte queue, s2c 10 Mbit/s with a 100 KB "
             "queue: the uplink carries fewer ACKs than the client sends and drops most of them; each "
             "ACK that gets through releases a burst, and in slow start the bursts overflow the downlink "
             "queue too (paper 004's asymmetric network)",
             download(500_000), delay_us=both(20 * MS),
             rate_kbit={"c2s": 64, "s2c": 10_000}, queue_bytes={"c2s": 500, "s2c": 100_000},
             expect=(("drops.ack", 10, None),)),
    Scenario("jitter",
             "200 KB, 20 ms, each packet of both directions held 0-10 ms more at random (uniform, "
             "seeded), never reordered: a packet whose draw would overtake its predecessor leaves "
             "right behind it",
             download(200_000), delay_us=both(20 * MS), jitter_us=both(10 * MS), seed=7103, expect=NO_LOSS),
    Scenario("ack-compression",
             "500 KB, 20 ms, the ACK direction released in batches every 10 ms (ACK compression): "
             "the server receives ACKs in bunches and answers each bunch with a burst",
             download(500_000), delay_us=both(20 * MS), batch_us={"c2s": 10 * MS, "s2c": 0}, expect=NO_LOSS),
    Scenario("zero-window",
             "500 KB to a slow reader (SO_RCVBUF 8 KB, reads 4 KB then sleeps 50 ms, no delayed ACKs), "
             "10 ms: the receive window closes again and again (zero-window advertisements) and the "
             "reader, slower than the 20 ms round trip, is the bottleneck",
             (ConnectionPlan((Exchange(500_000),), rcvbuf=8_192, read_size=4_096, read_sleep_ms=50),),
             delay_us=both(10 * MS), client_quickack=True,
             expect=(("drops", 0, 0), ("client.TcpExtTCPToZeroWindowAdv", 1, None)),
             notes="With delayed ACKs the reader frees space before the delayed-ACK timer (>= 40 ms) "
                   "fires, so Linux never advertised window 0; the client route has quickack 1."),
    Scenario("server-stall", "500 KB, 20 ms, the server stalls 200 ms once its first 100000 response bytes "
             "are acknowledged (so the whole stall is on the critical path)",
             download(500_000, stalls=((100_000, 200),)), delay_us=both(20 * MS), expect=NO_LOSS),
    Scenario("keepalive-3",
             "HTTP/1.1 keep-alive, 3 requests on one connection: think 20/80/150 ms, responses "
             "10/50/5 KB, client pauses 30 ms before the 2nd and 3rd request, 25 ms",
             (ConnectionPlan((Exchange(10_000, think_ms=20), Exchange(50_000, think_ms=80, pause_ms=30),
                              Exchange(5_000, think_ms=150, pause_ms=30)), http="1.1"),),
             delay_us=both(25 * MS), expect=NO_LOSS),
    CLOCK_OFFSET,
    replace(FAST_RETRANSMIT, name="cubic-fast-retransmit", cc="cubic",
            description="fast-retransmit with CUBIC (TCP_CONGESTION=cubic on the server socket)"),
    replace(FAST_RETRANSMIT, name="sack-fast-retransmit", sack=True,
            description="fast-retransmit with SACK on (SACK recovery)",
            expect=(("drops", 1, 1), ("server.TcpRetransSegs", 1, 1), ("server.TcpExtTCPFastRetrans", 1, 1),
                    ("server.TcpExtTCPSackRecovery", 1, 1), ("server.TcpExtTCPTimeouts", 0, 0))),
    replace(TAIL_TIMEOUT, name="sack-tail-loss", sack=True,
            description="tail-timeout with SACK on: a tail loss probe repairs the loss before any RTO",
            expect=(("drops", 1, 1), ("server.TcpExtTCPLossProbes", 1, None), ("server.TcpExtTCPTimeouts", 0, 0))),
    replace(TAIL_TIMEOUT, name="tlp-off-sack", sack=True, early_retrans=0,
            description="tail-timeout with SACK on and tail loss probes off (net.ipv4.tcp_early_retrans=0): "
                        "the retransmission timer repairs the tail",
            expect=(("drops", 1, 1), ("server.TcpExtTCPLossProbes", 0, 0), ("server.TcpExtTCPTimeouts", 1, 1))),
    Scenario("synack-loss",
             "20 KB, 25 ms, the first SYN-ACK dropped: the client's SYN timer (1 s) re-sends its SYN and "
             "the server answers with its SYN-ACK again, unless its own 1 s SYN-ACK timer beat that SYN",
             download(20_000), delay_us=both(25 * MS), drop_rules=({"dir": "s2c", "kind": "synack", "times": 1},),
             expect=(("drops.synack", 1, 1), ("drops", 1, 1), ("client.TcpExtTCPTimeouts", 1, 1))),
    Scenario("request-loss",
             "20 KB, 25 ms, the first transmission of the client's request dropped: the client's "
             "retransmission timer re-sends it",
             download(20_000), delay_us=both(25 * MS), drop_rules=drop_first("c2s", 0),
             expect=(("drops.data", 1, 1), ("drops", 1, 1), ("client.TcpExtTCPTimeouts", 1, 1),
                     ("client.TcpRetransSegs", 1, 1))),
    Scenario("random-loss",
             "500 KB, 20 ms, SACK on, 2 % of the server's data packets dropped at random (seeded): "
             "recovery by fast retransmits, tail loss probes or timeouts",
             download(500_000), delay_us=both(20 * MS), sack=True, random_loss={"c2s": 0, "s2c": 0.02}, seed=7102,
             expect=(("drops.data", 1, None), ("server.TcpRetransSegs", 1, None))),
    replace(CLOCK_OFFSET, name="cubic-clock-offset", cc="cubic",
            description="clock-offset with CUBIC on the server socket"),
    replace(CLOCK_OFFSET, name="sack-clock-offset", sack=True, description="clock-offset with SACK on"),
    Scenario("asym-delay", "20 KB with 10 ms c2s and 40 ms s2c one-way delay",
             download(20_000), delay_us={"c2s": 10 * MS, "s2c": 40 * MS}, expect=NO_LOSS),
    Scenario("offload-on",
             "500 KB, 10 ms, segmentation offload left on: the server capture shows super-segments",
             download(500_000), delay_us=both(10 * MS), offload=True, expect=NO_LOSS),
    Scenario("random-batch",
             "40 sequential connections in one capture pair, seeded: think 0-200 ms, one-way delay "
             "10-50 ms (same both ways, per connection), response 2-200 KB, half of them with the "
             "first transmission of one random s2c data segment dropped",
             random_batch(seed=7101), delay_us=None, drop_rules=None, seed=7101),
    Scenario("loss-twins",
             "500 KB, 25 ms, client SO_RCVBUF 4 MB (the congestion window limits, not the receiver's), "
             "six connections of one download: the first, third and sixth lose nothing, the second "
             "loses the first transmission of the segment holding byte 300000 (one fast retransmit), "
             "the fourth of byte 100000 (one, in slow start), the fifth those holding bytes 100000, "
             "250000 and 400000 (three): what loss costs, window reductions included, is the "
             "difference to the loss-free twins",
             tuple(ConnectionPlan((Exchange(500_000),), rcvbuf=4_000_000, drop_rules=rules) for rules in (
                 (), drop_first("s2c", 300_000), (), drop_first("s2c", 100_000),
                 drop_first("s2c", 100_000) + drop_first("s2c", 250_000) + drop_first("s2c", 400_000), ())),
             delay_us=both(25 * MS), drop_rules=None,
             expect=(("drops", 5, 5), ("server.TcpExtTCPFastRetrans", 5, 5), ("server.TcpExtTCPTimeouts", 0, 0))),
    Scenario("server-link-100mbit",
             "500 KB, 20 ms, the server's own link limited to 100 Mbit/s (tbf on its eth0, so its "
             "capture shows each burst spaced at that rate), no loss: time the server's link spends "
             "serialising a burst is not the application's",
             download(500_000), delay_us=both(20 * MS), server_link_kbit=100_000, expect=NO_LOSS),
    Scenario("bench-bulk",
             "300 MB bulk download at 1 ms one-way delay, no rate limit: throughput benchmark input",
             download(300_000_000, write_size=262_144), delay_us=both(1 * MS),
             fixture=False, client_timeout_s=600),
)

BY_NAME = {scenario.name: scenario for scenario in SCENARIOS}


def connection_delay_us(scenario, plan):
    return plan.delay_us if plan.delay_us is not None else scenario.delay_us


def connection_rules(scenario, plan):
    return plan.drop_rules if plan.drop_rules is not None else scenario.drop_rules
