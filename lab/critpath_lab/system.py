"""Running commands, in namespaces or not, and checking this machine can run the lab."""

import os
import shutil
import subprocess
import sys

LAB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXIT_CANNOT_RUN = 3
# the kernels did not do what a scenario intends (a loaded machine can make that happen): not an analysis failure
EXIT_NOT_AS_INTENDED = 4


class LabError(RuntimeError):
    """A lab step failed; the message says which and why."""


class CannotRunHere(LabError):
    """This machine lacks something the lab needs (exit code 3, so tests can skip)."""


def progress(message):
    print(f"critpath-lab: {message}", file=sys.stderr, flush=True)


def in_ns(ns, argv):
    return ["ip", "netns", "exec", ns, *argv]


def run(argv, check=True, timeout=60, **popen):
    """Runs a command and returns its stdout; raises LabError with its stderr on failure."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **popen)
    except subprocess.TimeoutExpired:
        raise LabError(f"{' '.join(argv)}: no answer after {timeout} s") from None
    if check and done.returncode != 0:
        raise LabError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


REQUIRED_TOOLS = {
    "ip": "iproute2",
    "ss": "iproute2",
    "nstat": "iproute2",
    "tcpdump": "tcpdump",
    "ethtool": "ethtool",
    "chrt": "util-linux",
}


def missing_requirements(need_go):
    """Everything that stops the lab from running here, as readable sentences."""
    problems = []
    if os.geteuid() != 0:
        problems.append("not running as root (network namespaces, TUN and tcpdump need it)")
    if not os.path.exists("/dev/net/tun"):
        problems.append("/dev/net/tun is missing (the delay line needs a TUN device)")
    for tool, package in REQUIRED_TOOLS.items():
        if shutil.which(tool) is None:
            problems.append(f"{tool} not found (install {package})")
    if need_go and shutil.which("go") is None:
        problems.append("go not found, and the delay line binary is missing or older than its source")
    if sys.version_info < (3, 10):
        problems.append("Python 3.10 or newer is needed")
    return problems


def require_machine(need_go):
    problems = missing_requirements(need_go)
    if problems:
        raise CannotRunHere("this machine cannot run the lab:\n  - " + "\n  - ".join(problems))
