"""Command line of the critpath trace lab (see docs/lab.md)."""

import argparse
import datetime
import os
import signal
import sys

from . import processes
from .droprules import RuleError, parse_rule
from .fixtures import regenerate
from .runner import run_scenarios
from .scenarios import BY_NAME, SCENARIOS, both
from .system import EXIT_CANNOT_RUN, EXIT_NOT_AS_INTENDED, LAB_DIR, CannotRunHere, LabError, missing_requirements, progress, \
    require_machine
from .topology import Topology, cleanup

DESCRIPTION = """\
Trace lab of critpath: real Linux TCP connections between a client and a server
network namespace, through a router namespace whose userspace delay line adds
propagation delay and drops chosen packets. Both ends are captured with tcpdump,
and what really happened (delays, drops, server think times, kernel counters) is
written to truth.json next to client.pcap and server.pcap.

Commands needing the testbed exit with code 3 when this machine cannot run it
(not root, no /dev/net/tun, tcpdump, ip or go missing)."""


def command_list(_args):
    width = max(len(s.name) for s in SCENARIOS)
    for s in SCENARIOS:
        marker = "" if s.fixture else "  [not a fixture]"
        print(f"{s.name:<{width}}  {s.description}{marker}")


def command_check(_args):
    problems = missing_requirements(need_go=processes.delayline_is_stale())
    if problems:
        print("this machine cannot run the lab:\n  - " + "\n  - ".join(problems))
        return EXIT_CANNOT_RUN
    print("this machine can run the lab")
    return 0


def command_run(args):
    if args.all == bool(args.scenarios):
        return usage_error("name scenarios or give --all, not both")
    unknown = [name for name in args.scenarios if name not in BY_NAME]
    if unknown:
        return usage_error(f"unknown scenario(s) {', '.join(unknown)} (see critpath-lab list)")
    require_machine(need_go=processes.delayline_is_stale())
    scenarios = list(SCENARIOS) if args.all else [BY_NAME[name] for name in args.scenarios]
    out = args.out or os.path.join(LAB_DIR, "runs", datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    results = run_scenarios(scenarios, out, args.keep_logs)
    progress(f"output in {out}")
    return report(results)


def usage_error(message):
    print(f"critpath-lab run: {message}", file=sys.stderr)
    return 2


def command_fixtures(args):
    unknown = [name for name in args.scenarios if name not in BY_NAME or not BY_NAME[name].fixture]
    if unknown:
        print(f"critpath-lab fixtures: not fixture scenarios: {', '.join(unknown)}", file=sys.stderr)
        return 2
    require_machine(need_go=processes.delayline_is_stale())
    return report(regenerate(args.scenarios))


def report(results):
    failed = {name: failures for name, failures in results.items() if failures}
    for name, failures in failed.items():
        progress(f"{name} did not behave as intended: {'; '.join(failures)}")
    return EXIT_NOT_AS_INTENDED if failed else 0


def command_cleanup(args):
    require_machine(need_go=False)
    removed = cleanup(everything=args.all)
    print(f"removed {len(removed)} namespace(s)" if removed else "nothing to clean up")


def command_topology(args):
    """Brings a testbed up for manual experiments and tears it down on Ctrl-C."""
    require_machine(need_go=processes.delayline_is_stale())
    processes.build_delayline()
    scenario = BY_NAME[args.scenario]
    topology = Topology()
    topology.up(scenario)
    delayline = None
    try:
        config = scenario.delayline_config(both(args.delay_us) if args.delay_us is not None else scenario.delay_us,
                                           args.drop, both(args.jitter_us) if args.jitter_us is not None else None,
                                           random_loss=False)
        log_dir = f"/tmp/{topology.prefix}logs"
        os.makedirs(log_dir, exist_ok=True)
        delayline = processes.start_delayline(topology.router, config, f"{log_dir}/delayline-config.json",
                                              f"{log_dir}/delayline.jsonl", f"{log_dir}/delayline.stderr")
        print(f"testbed up with {scenario.name}'s network settings, delay line config {config}\n"
              f"  ip netns exec {topology.server} python3 {LAB_DIR}/endpoints/server.py\n"
              f"  ip netns exec {topology.client} python3 {LAB_DIR}/endpoints/client.py --server 10.71.2.2 "
              f"'/obj?size=20000'\n"
              f"delay line log: {log_dir}/delayline.jsonl\n"
              f"Ctrl-C tears it down.", flush=True)
        signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        if delayline:
            delayline.stop()
        topology.down()


def rule_argument(text):
    try:
        return parse_rule(text)
    except RuleError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parser():
    p = argparse.ArgumentParser(prog="critpath-lab", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = commands.add_parser("list", help="list the scenarios")
    c.set_defaults(func=command_list)

    c = commands.add_parser("run", help="run scenarios into an output directory",
                            description="Runs scenarios one after another; each gets a directory with client.pcap, "
                                        "server.pcap and truth.json. Exits 1 if a scenario missed its intended "
                                        "behaviour (e.g. no fast retransmit).")
    c.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="scenario names (see critpath-lab list)")
    c.add_argument("--all", action="store_true", help="run every scenario (the benchmark too)")
    c.add_argument("--out", help="output directory (default: lab/runs/<timestamp>/), one subdirectory per scenario")
    c.add_argument("--keep-logs", action="store_true",
                   help="keep logs/ (delay line, endpoints, nstat, tcpdump) in each scenario directory")
    c.set_defaults(func=command_run)

    c = commands.add_parser("fixtures", help="regenerate testdata/lab (every scenario except benchmarks)",
                            description="Runs every fixture scenario, or the ones named, and puts the results into "
                                        "testdata/lab (replaced whole when every scenario ran) and renders its "
                                        "README, only if all of them behaved as intended.")
    c.add_argument("scenarios", nargs="*", metavar="SCENARIO", help="only these scenarios (default: all)")
    c.set_defaults(func=command_fixtures)

    c = commands.add_parser("cleanup", help="remove namespaces (and their processes) left by dead lab runs")
    c.add_argument("--all", action="store_true", help="remove every cpl-* namespace, even of running labs")
    c.set_defaults(func=command_cleanup)

    c = commands.add_parser("check", help="say whether this machine can run the lab (exit 3 if not)")
    c.set_defaults(func=command_check)

    c = commands.add_parser("topology", help="bring a testbed up for manual use until Ctrl-C")
    c.add_argument("--scenario", default="dl-20k", choices=sorted(BY_NAME),
                   help="take network settings (sack, cc, rates and queues, batches, offload...) from this scenario")
    c.add_argument("--delay-us", type=int, help="one-way delay in both directions (default: the scenario's)")
    c.add_argument("--jitter-us", type=int, help="uniform extra delay 0..J, never reordering (default: the scenario's)")
    c.add_argument("--drop", type=rule_argument, action="append", default=[],
                   help="drop rule DIR:KIND[=VALUE][:times=K], e.g. s2c:offset=30000 (repeatable)")
    c.set_defaults(func=command_topology)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    # SIGTERM unwinds like Ctrl-C, so namespaces and processes get cleaned up.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return args.func(args) or 0
    except CannotRunHere as error:
        print(f"critpath-lab: {error}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except LabError as error:
        print(f"critpath-lab: {error}", file=sys.stderr)
        return 1
