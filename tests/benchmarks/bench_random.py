"""Benchmark: bit-exact random draws and 1,000 randomly initialized variables end to end, beside TF.

Run from the repository root: ``python tests/benchmarks/bench_random.py [--no-tf] [--tf-threads N]``.
Not collected by pytest (the file name does not start with ``test_``).  Rows: 1,000
``Variable(random_normal([100]))`` created, initialized, saved and restored (one figure, then its parts);
``random_uniform``, ``random_normal`` and ``truncated_normal`` at 784x256, at 10 million elements, and at
784x256 again (ours has built its Box-Muller tables by then), one ``Session.run`` of the op per call, the
same op run repeatedly so each run draws fresh numbers; ``random_shuffle`` of a million rows.
TensorFlow shards a draw over its intra-op threads (all cores by default); ours splits a draw of 8,192
blocks or more (32,768 floats) in two shards, the second on a worker thread, and numexpr (float32 normals'
logf, sinf, cosf before the tables exist) runs on its own two threads.  ``--tf-threads 1`` shows
TensorFlow on one core.  Each framework runs in fresh processes of its own, three alternating runs of each
(medians), so neither framework's threads or allocations weigh on the other's draws.  A row times the steady
state, after five warm-up calls: a 10M draw of ours is slower over its first few calls in a process (uniform,
idle: 35-65 ms over the first four, then 22.5 ms; TF 22 ms after its first).  On a shared machine compare the ratios of one run, and
note its load (``uptime``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402

# The third row set repeats the first after the 10M draws: by then ours has built its Box-Muller tables (a
# process builds them once its direct-path draws have cost about as much; see graph/ops/box_muller_tables.py).
SIZES = {"784x256": [784, 256], "10M": [10_000_000], "784x256 (after 10M)": [784, 256]}
VARIABLES = 1000
# A 10M draw of ours is slow over its first few calls in a process (uniform, idle: 35-65 ms over the first
# four, then 22.5 ms steady; the cause is not pinned down), TF's after its first: rows time the steady state.
WARM_UP_CALLS = 5
SHUFFLE_ROWS = 1_000_000


def median_seconds(function, rounds: int) -> float:
    """Median seconds of ``function()`` over ``rounds`` calls, after `WARM_UP_CALLS` warm-up calls."""
    for _ in range(WARM_UP_CALLS):
        function()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def draw_workloads(tf, session_config) -> list:
    """``(row, call, rounds_divisor)`` for each draw workload, each a ``Session.run`` of one op in its own session."""
    workloads = []
    for size_name, shape in SIZES.items():
        graph = tf.Graph()
        with graph.as_default():
            ops = {"random_uniform": tf.random_uniform(shape, seed=1),
                   "random_normal": tf.random_normal(shape, seed=2),
                   "truncated_normal": tf.truncated_normal(shape, seed=3)}
            sess = tf.Session(graph=graph, config=session_config)
        for name, tensor in ops.items():
            divisor = 1 if size_name != "10M" else 4
            workloads.append((f"{name} {size_name}", lambda s=sess, t=tensor: s.run(t.op), divisor))
    graph = tf.Graph()
    with graph.as_default():
        shuffle = tf.random_shuffle(tf.constant(np.arange(SHUFFLE_ROWS, dtype=np.int64)), seed=4)
        sess = tf.Session(graph=graph, config=session_config)
    workloads.append((f"random_shuffle {SHUFFLE_ROWS:,} rows", lambda: sess.run(shuffle.op), 5))
    return workloads


def draws(tf, session_config, rounds: int) -> dict:
    """Seconds per draw of each workload (the median of ``rounds`` calls, fewer at 10M) with ``tf``."""
    return {row: median_seconds(call, max(3, rounds // divisor))
            for row, call, divisor in draw_workloads(tf, session_config)}


def variables_end_to_end(tf, session_config) -> dict:
    """1,000 ``Variable(random_normal([100]))``: create (with the Saver), initialize, save, restore; seconds."""
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        prefix = os.path.join(directory, "model")
        graph = tf.Graph()
        start = time.perf_counter()
        with graph.as_default():
            tf.set_random_seed(0)
            for _ in range(VARIABLES):
                tf.Variable(tf.random_normal([100]))
            init = tf.global_variables_initializer()
            saver = tf.train.Saver()
            created = time.perf_counter()
            with tf.Session(graph=graph, config=session_config) as sess:
                sess.run(init)
                initialized = time.perf_counter()
                saver.save(sess, prefix, write_meta_graph=False)
                saved = time.perf_counter()
                saver.restore(sess, prefix)
                restored = time.perf_counter()
    results[f"{VARIABLES} random variables end to end"] = restored - start
    results["  create (graph + Saver)"] = created - start
    results["  initialize"] = initialized - created
    results["  save"] = saved - initialized
    results["  restore"] = restored - saved
    return results


def in_children(kind: str, names: list, tf_threads: int, rounds: int) -> dict:
    """Rows of ``kind`` ("end-to-end" or "draws") for each framework, each run in a fresh process that imports
    only its framework: the end-to-end figure is a one-shot measurement of a program (Python's full garbage
    collections would otherwise walk the other framework's objects too), and TF's spinning threads would slow
    our draws.  The median of three runs per framework, alternating, row by row."""
    runs = {name: [] for name in names}
    for _ in range(3):
        for name in names:
            command = [sys.executable, os.path.abspath(__file__), "--child", kind, "--framework", name,
                       "--tf-threads", str(tf_threads), "--rounds", str(rounds)]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            runs[name].append(json.loads(output.strip().splitlines()[-1]))
    return {name: {key: statistics.median(run[key] for run in done) for key in done[0]} for name, done in runs.items()}


def child(kind: str, name: str, tf_threads: int, rounds: int) -> None:
    """One run of ``kind``'s rows with ``name``'s framework in this fresh process, as JSON on stdout (the names
    the end-to-end program uses resolved before its clock starts: lazily imported modules are imports, not
    the workload)."""
    tf, config = load_framework(name, tf_threads)
    if kind == "draws":
        print(json.dumps(draws(tf, config, rounds)))
        return
    for used in ("Graph", "set_random_seed", "Variable", "random_normal", "global_variables_initializer",
                 "Session"):
        getattr(tf, used)
    getattr(tf.train, "Saver")
    print(json.dumps(variables_end_to_end(tf, config)))


def load_framework(name: str, tf_threads: int) -> tuple:
    """(the framework's compat.v1 module, its session config) for "ours" or "tensorflow"."""
    if name == "ours":
        import graph.compat.v1 as ours_tf
        return ours_tf, None
    import tensorflow.compat.v1 as tf1
    tf1.disable_v2_behavior()
    tf1.logging.set_verbosity(tf1.logging.ERROR)
    return tf1, tf1.ConfigProto(intra_op_parallelism_threads=tf_threads)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="timed draws per row (fewer at 10M)")
    parser.add_argument("--tf-threads", type=int, default=0, help="TF's intra-op threads (0: TF's default)")
    parser.add_argument("--no-tf", action="store_true", help="time only this emulator")
    parser.add_argument("--child", choices=("end-to-end", "draws"), help=argparse.SUPPRESS)
    parser.add_argument("--framework", choices=("ours", "tensorflow"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.framework, args.tf_threads, args.rounds)
        return
    names = ["ours"]
    if not args.no_tf and not have_tensorflow():
        print(NO_TENSORFLOW)
    elif not args.no_tf:
        names.append("tensorflow")
    results = in_children("end-to-end", names, args.tf_threads, args.rounds)
    for name, rows in in_children("draws", names, args.tf_threads, args.rounds).items():
        results[name].update(rows)
    ours, theirs = results["ours"], results.get("tensorflow", {})
    print(f"{os.cpu_count()} cores; TensorFlow intra-op threads: {args.tf_threads or 'default (all cores)'}")
    print(f"{'workload':38s} {'ours':>12s} {'tensorflow':>12s} {'TF / ours':>9s}")
    for key, value in ours.items():
        other = theirs.get(key)
        other_text = f"{other * 1e3:10.3f}ms" if other else "           -"
        print(f"{key:38s} {value * 1e3:10.3f}ms {other_text} {ratio(value, other):>9s}")
    print(RATIO_LEGEND)


if __name__ == "__main__":
    main()
