#!/usr/bin/env python
"""Long crash-safety run (not collected by pytest): SIGKILL saving children for as long as you like.

    python tests/safety/long_runs/kill_loop.py --seconds 3600 [--scenario sharded] [--seed 7]

Each round picks a scenario of tests/safety/_crash.py (plain, sharded, V1, same prefix, ...) and
either every event of its dry run (``--every``) or random kill points, and also kills at random
*times* (a timer signal after a random delay, so kills land inside writes as well as between them).
After each kill the same checks as test_crash_safety.py run.  The last line printed is a JSON
summary with the number of kills survived per scenario.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import shutil
import signal
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SAFETY = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(SAFETY))
sys.path[:0] = [SAFETY, ROOT]

import _crash  # noqa: E402


def timed_kill(scenario, directory: str, delay: float) -> int:
    """Forks an undisturbed child and SIGKILLs it after ``delay`` seconds; returns its status."""
    pid = os.fork()
    if pid == 0:
        scenario._child(directory, None, scenario.steps)
    time.sleep(delay)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--scenario", choices=sorted(_crash.SCENARIOS), default=None)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--every", action="store_true", help="kill at every event of each scenario in turn")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    logging.disable(logging.CRITICAL)  # latest_checkpoint logs every absent checkpoint
    rng = random.Random(args.seed)
    scratch = args.workdir or tempfile.mkdtemp(prefix="kill-loop-")
    names = [args.scenario] if args.scenario else sorted(_crash.SCENARIOS)
    totals = {name: {"event_kills": 0, "timed_kills": 0, "absent_window": 0} for name in names}
    stop = time.time() + args.seconds
    rounds = 0
    while time.time() < stop:
        name = names[rounds % len(names)]
        scenario = _crash.SCENARIOS[name]
        log = scenario.dry_run(scratch)
        total = len(log["events"])
        if args.every:
            points = range(1, total + 1)
        else:
            points = rng.sample(range(1, total + 1), min(total, 20))
        counts = _crash.run_scenario(scenario, scratch, kill_points=points, resume_every=1)
        totals[name]["event_kills"] += counts["kills"]
        totals[name]["absent_window"] += counts["absent_window"]
        # Kills at random times: land anywhere, inside a write included.
        for _ in range(10):
            directory = os.path.join(scratch, "%s-timed" % name)
            os.makedirs(directory)
            status = timed_kill(scenario, directory, rng.uniform(0.0, 0.05))
            if status == -signal.SIGKILL:
                totals[name]["timed_kills"] += 1
                scenario.check(directory, None, restore=True)
                scenario.resume(directory, -1)
            shutil.rmtree(directory)
        rounds += 1
        print(json.dumps({"round": rounds, "scenario": name, "totals": totals[name]}), flush=True)
    survived = sum(t["event_kills"] + t["timed_kills"] for t in totals.values())
    print(json.dumps({"kills_survived": survived, "per_scenario": totals, "seconds": args.seconds}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
