import os
import subprocess
import sys

from critpath_lab import system
from critpath_lab.cli import main
from critpath_lab.scenarios import SCENARIOS

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_list_names_every_scenario(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert all(s.name in out for s in SCENARIOS)


def test_script_runs_help():
    done = subprocess.run([sys.executable, os.path.join(LAB, "critpath-lab"), "--help"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "fixtures" in done.stdout


def test_refuses_with_exit_3_when_machine_lacks_things(monkeypatch, capsys):
    monkeypatch.setattr(system.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(system.shutil, "which", lambda tool: None if tool == "tcpdump" else "/usr/bin/" + tool)
    assert main(["check"]) == system.EXIT_CANNOT_RUN
    out = capsys.readouterr().out
    assert "not running as root" in out and "tcpdump not found" in out
    for command in (["run", "dl-1k"], ["fixtures"], ["cleanup"]):
        assert main(command) == system.EXIT_CANNOT_RUN
    assert "cannot run the lab" in capsys.readouterr().err


def test_go_is_needed_only_to_build(monkeypatch):
    monkeypatch.setattr(system.os, "geteuid", lambda: 0)
    monkeypatch.setattr(system.os.path, "exists", lambda path: True)
    monkeypatch.setattr(system.shutil, "which", lambda tool: None if tool == "go" else "/usr/bin/" + tool)
    assert system.missing_requirements(need_go=False) == []
    assert "go not found" in system.missing_requirements(need_go=True)[0]


def test_fixtures_refuses_names_that_are_no_fixture(capsys):
    assert main(["fixtures", "dl-1k", "bench-bulk", "no-such"]) == 2
    assert "bench-bulk, no-such" in capsys.readouterr().err
