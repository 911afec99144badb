"""Safety-suite plumbing: a shared report of counts, printed at the end and saved as JSON."""

from __future__ import annotations

import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

_REPORT: dict[str, dict] = {}


@pytest.fixture(scope="session")
def safety_report():
    """A dict of section -> counts; tests add to it, the terminal summary prints it."""
    return _REPORT


def _totals(report: dict) -> dict:
    """The headline numbers: kills survived, damaged files detected/harmless, fuzz executions."""
    out = {}
    crash = report.get("crash_safety", {})
    if crash:
        out["kills_survived"] = sum(c["kills"] for c in crash.values())
        out["kills_absent_window"] = sum(c["absent_window"] for c in crash.values())
    corruption = report.get("corruption", {})
    files = [c for k, c in corruption.items() if "detected" in c and "harmless" in c]
    if files:
        out["damaged_files_detected"] = sum(c["detected"] + c.get("truncated_detected", 0) for c in files)
        out["damaged_files_harmless"] = sum(c["harmless"] + c.get("truncated_harmless", 0) for c in files)
    fuzz = sum(sum(v.values()) for v in report.get("fuzz_hypothesis", {}).values())
    fuzz += report.get("fuzz_atheris", {}).get("executions", 0)
    if fuzz:
        out["fuzz_executions"] = fuzz
    return out


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not _REPORT:
        return
    terminalreporter.section("safety report (counts)")
    totals = _totals(_REPORT)
    if totals:
        _REPORT["totals"] = totals
    for section in sorted(_REPORT):
        terminalreporter.write_line(f"{section}: {json.dumps(_REPORT[section], sort_keys=True)}")
    try:
        base = config._tmp_path_factory.getbasetemp()  # noqa: SLF001 - pytest's own tmp dir
        path = os.path.join(str(base), "safety_report.json")
        with open(path, "w") as file:
            json.dump(_REPORT, file, indent=1, sort_keys=True)
        terminalreporter.write_line(f"written to {path}")
    except Exception as error:  # noqa: BLE001 - the report is a convenience
        terminalreporter.write_line(f"(report not saved: {error})")
