"""Benchmark: Session.run per-call overhead and building graphs with many variables, next to TensorFlow.

Run from the repository root: ``python tests/benchmarks/bench_session.py [--variables N] [--no-tf]``.
Not collected by pytest (the file name does not start with ``test_``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402


def per_call(function, seconds: float = 0.5) -> float:
    """Mean seconds per call of ``function`` over about ``seconds`` of wall time (after a warm-up)."""
    for _ in range(20):
        function()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            function()
        count += 100
    return (time.perf_counter() - start) / count


def run_benchmarks(tf, variables: int) -> dict:
    """Times the same workloads with ``tf`` (ours or TensorFlow's compat.v1)."""
    results = {}
    graph = tf.Graph()
    with graph.as_default():
        a = tf.constant(1.0)
        b = tf.constant(2.0)
        c = tf.add(a, b)
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.multiply(x, 2.0)
        sess = tf.Session(graph=graph)
        sess.run(c)
        feed = {x: np.ones(4, np.float32)}
        results["run(a+b)"] = per_call(lambda: sess.run(c))
        results["run(x*2, feed)"] = per_call(lambda: sess.run(y, feed))
        results["run([a, b, c])"] = per_call(lambda: sess.run([a, b, c]))
        sess.close()

    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        normal = tf.random_normal([784, 256])
        truncated = tf.truncated_normal([784, 256])
        with tf.Session(graph=graph) as sess:
            results["run(random_normal 784x256)"] = per_call(lambda: sess.run(normal), seconds=1.0)
            results["run(truncated_normal 784x256)"] = per_call(lambda: sess.run(truncated), seconds=1.0)

    start = time.perf_counter()
    graph = tf.Graph()
    with graph.as_default():
        for index in range(variables):
            with tf.variable_scope(f"layer{index % 50}", reuse=tf.AUTO_REUSE):
                tf.Variable(tf.zeros([2]), name="v")
        init = tf.global_variables_initializer()
    build = time.perf_counter() - start
    results[f"build {variables} variables"] = build
    results["build, per variable"] = build / variables
    start = time.perf_counter()
    with tf.Session(graph=graph) as sess:
        sess.run(init)
    results[f"run initializer of {variables}"] = time.perf_counter() - start
    return results


def ours_namespace():
    """This emulator, imported the way a TF1 program would after its one-line change."""
    import graph.compat.v1 as tf
    return tf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variables", type=int, default=2000)
    parser.add_argument("--no-tf", action="store_true", help="time only this emulator")
    args = parser.parse_args()
    ours = run_benchmarks(ours_namespace(), args.variables)
    theirs = {}
    if not args.no_tf and not have_tensorflow():
        print(NO_TENSORFLOW)
    elif not args.no_tf:
        import tensorflow.compat.v1 as tf1
        tf1.disable_v2_behavior()
        tf1.logging.set_verbosity(tf1.logging.ERROR)
        theirs = run_benchmarks(tf1, args.variables)
    print(f"{'workload':34s} {'ours':>12s} {'tensorflow':>12s} {'TF / ours':>9s}")
    for key, value in ours.items():
        other = theirs.get(key)
        unit, scale = ("us", 1e6) if key.startswith("run(") or "per variable" in key else ("ms", 1e3)
        other_text = f"{other * scale:10.1f}{unit}" if other else "           -"
        print(f"{key:34s} {value * scale:10.1f}{unit} {other_text} {ratio(value, other):>9s}")
    print(RATIO_LEGEND)


if __name__ == "__main__":
    main()
