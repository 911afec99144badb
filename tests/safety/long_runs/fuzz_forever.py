#!/usr/bin/env python
"""Long fuzzing runs of the checkpoint readers (not collected by pytest).

    python tests/safety/long_runs/fuzz_forever.py --engine atheris --seconds 3600
    python tests/safety/long_runs/fuzz_forever.py --engine random --seconds 600 [--target entry]
    python tests/safety/long_runs/fuzz_forever.py --exhaustive        # all 255 values of every byte

Engines: ``atheris`` (coverage-guided libFuzzer; the input's first byte picks the target of
tests/safety/_targets.py, the rest is its input; runs in a child process so libFuzzer's exit is
survived), ``random`` (mutations of valid seeds, no dependencies).  Only graph.errors.OpError may
escape a target; anything else, a hang (> --timeout s) or an allocation above 64 x the input size +
32 MiB (random engine, tracemalloc) is a finding, saved under --workdir.  The last line printed is
a JSON summary: {"engine", "seconds", "executions", "findings", "per_target"}.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SAFETY = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(SAFETY))
sys.path[:0] = [SAFETY, ROOT]


# ------------------------------------------------------------------------------------- atheris


def atheris_child(args) -> None:
    import atheris
    with atheris.instrument_imports(include=["saver", "graph"]):
        import _targets
        import saver.storage.reader  # noqa: F401
        import saver.storage.object_graph  # noqa: F401
        import saver.format.v1  # noqa: F401
    logging.disable(logging.CRITICAL)
    names = sorted(_targets.TARGETS)
    ws = _targets.Workspace(args.workdir)

    def one_input(data: bytes) -> None:
        if not data:
            return
        name = names[data[0] % len(names)]
        try:
            _targets.TARGETS[name](ws, data[1:])
        except _targets.ALLOWED:
            pass

    corpus = os.path.join(args.workdir, "corpus")
    os.makedirs(corpus, exist_ok=True)
    for name, seeds in _targets.seeds(ws).items():
        for seed in seeds:
            data = bytes((names.index(name),)) + seed
            with open(os.path.join(corpus, hashlib.sha1(data).hexdigest()), "wb") as file:
                file.write(data)
    crashes = os.path.join(args.workdir, "crashes") + os.sep
    os.makedirs(crashes, exist_ok=True)
    libfuzzer = [sys.argv[0], corpus, "-max_total_time=%d" % args.seconds, "-timeout=%d" % args.timeout,
                 "-rss_limit_mb=%d" % args.rss_limit_mb, "-artifact_prefix=" + crashes, "-print_final_stats=1",
                 "-max_len=4096"]
    atheris.Setup(libfuzzer, one_input)
    atheris.Fuzz()


def atheris_driver(args) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--atheris-child", "--seconds", str(args.seconds),
               "--workdir", args.workdir, "--timeout", str(args.timeout), "--rss-limit-mb", str(args.rss_limit_mb)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=args.seconds + 600)
    log = result.stdout + result.stderr
    with open(os.path.join(args.workdir, "atheris.log"), "w") as file:
        file.write(log)
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log) or re.findall(r"Done (\d+) runs", log)
    findings = sorted(os.listdir(os.path.join(args.workdir, "crashes"))) \
        if os.path.isdir(os.path.join(args.workdir, "crashes")) else []
    if result.returncode != 0 and not findings:
        findings = ["exit status %d: %s" % (result.returncode, log[-2000:])]
    coverage = re.findall(r"cov: (\d+)", log)
    return {"engine": "atheris", "seconds": args.seconds, "executions": int(runs[-1]) if runs else 0,
            "coverage_edges": int(coverage[-1]) if coverage else None, "findings": findings,
            "uncaught": re.findall(r"=== Uncaught Python exception: ===\n(.*)", log)[:5]}


# --------------------------------------------------------------------------------------- random


def mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        position = rng.randint(0, len(data))
        if kind < 0.45 and data:
            data[min(position, len(data) - 1)] = rng.randrange(256)
        elif kind < 0.6:
            data[position:position] = os.urandom(rng.randint(1, 8))
        elif kind < 0.75 and data:
            del data[position:position + rng.randint(1, 8)]
        elif kind < 0.85:
            data[position:position] = rng.choice([b"\xff" * 9 + b"\x01", b"\x80" * 11, b"\xff\xff\xff\xff\x0f"])
        else:
            data = data[:position]
    return bytes(data)


def random_engine(args) -> dict:
    import _targets
    logging.disable(logging.CRITICAL)
    ws = _targets.Workspace(args.workdir)
    seeds = _targets.seeds(ws)
    names = [args.target] if args.target else sorted(_targets.TARGETS)
    rng = random.Random(args.seed)
    per_target = {name: {} for name in names}
    findings = []
    executions = 0
    stop = time.time() + args.seconds
    import signal

    def alarm(signum, frame):
        raise TimeoutError("hang: more than %d s" % args.timeout)
    signal.signal(signal.SIGALRM, alarm)
    while time.time() < stop:
        name = names[executions % len(names)]
        data = mutate(rng, rng.choice(seeds[name])) if rng.random() < 0.9 else os.urandom(rng.randint(0, 300))
        tracemalloc.start()
        signal.alarm(args.timeout)
        try:
            _targets.TARGETS[name](ws, data)
            outcome = "ok"
        except _targets.ALLOWED as error:
            outcome = type(error).__name__
        except Exception as error:  # noqa: BLE001 - every escape is a finding
            outcome = "FINDING"
            findings.append(_save(args.workdir, name, data, "%s: %s\n%s" % (
                type(error).__name__, error, traceback.format_exc())))
        finally:
            signal.alarm(0)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        if peak > (32 << 20) + 64 * len(data):
            findings.append(_save(args.workdir, name, data, "allocated %d bytes for %d" % (peak, len(data))))
        per_target[name][outcome] = per_target[name].get(outcome, 0) + 1
        executions += 1
    return {"engine": "random", "seconds": args.seconds, "executions": executions, "findings": findings,
            "per_target": per_target}


def _save(workdir: str, name: str, data: bytes, why: str) -> str:
    digest = hashlib.sha1(data).hexdigest()[:16]
    path = os.path.join(workdir, "finding-%s-%s" % (name, digest))
    with open(path + ".bin", "wb") as file:
        file.write(data)
    with open(path + ".txt", "w") as file:
        file.write(why)
    print("FINDING", name, why.splitlines()[0], file=sys.stderr)
    return path


# ----------------------------------------------------------------------------------- exhaustive


def exhaustive(args) -> dict:
    """All 255 other values of every byte, and every truncation, of the small checkpoint's files."""
    import _mutate
    prefix = _mutate.small_checkpoint(os.path.join(args.workdir, "small"))
    out = {}
    for suffix in (".index", ".data-00000-of-00001"):
        out[suffix] = _mutate.run_file_damage(prefix, prefix + suffix, _mutate.SMALL_VALUES)
    return {"engine": "exhaustive", "results": out, "findings": []}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine", choices=["atheris", "random"], default="random")
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--target", default=None, help="one of the targets of _targets.py (default: all)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--timeout", type=int, default=10)
    parser.add_argument("--rss-limit-mb", type=int, default=2048)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--exhaustive", action="store_true")
    parser.add_argument("--atheris-child", action="store_true", help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args()
    args.workdir = args.workdir or tempfile.mkdtemp(prefix="fuzz-forever-")
    os.makedirs(args.workdir, exist_ok=True)
    if args.atheris_child:
        sys.argv = [sys.argv[0]]
        atheris_child(args)
        return 0
    if args.exhaustive:
        report = exhaustive(args)
    elif args.engine == "atheris":
        report = atheris_driver(args)
    else:
        report = random_engine(args)
    print(json.dumps(report, sort_keys=True, default=str))
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
