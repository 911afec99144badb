"""Benchmark: one MLP training step (784-256-10, batch 100, Adam) and building a 100-layer gradient graph, beside TF.

Run from the repository root: ``python tests/benchmarks/bench_training.py [--no-tf] [--steps N] [--layers N]``.
Not collected by pytest (the file name does not start with ``test_``).  The "numpy floor" row is
the BLAS work one step cannot avoid (the forward and backward matmuls, done directly in numpy):
the emulator's step time minus that floor is its Python overhead.  OpenBLAS's thread count
matters on a loaded machine: compare with ``OPENBLAS_NUM_THREADS=1``.  ``--mallopt`` asks glibc to
keep freed blocks for reuse (a fixed mmap threshold of 64 MiB) instead of returning every large
temporary to the kernel: numpy's 800 KB temporaries then stop costing fresh page faults each step.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402

BATCH, INPUT, HIDDEN, CLASSES = 100, 784, 256, 10
WIDTH = 32  # of the deep tanh stack


def per_call(function, calls: int, rounds: int = 5) -> float:
    """Median over ``rounds`` of the mean seconds per call over ``calls`` calls (after a warm-up)."""
    for _ in range(5):
        function()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def mlp(tf):
    """The 784-256-10 ReLU MLP with Adam, in tf's default graph: (x, y, loss, train_op)."""
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, INPUT], name="x")
    y = tf.placeholder(tf.float32, [None, CLASSES], name="y")
    w1 = tf.Variable(tf.random_normal([INPUT, HIDDEN], stddev=0.05), name="w1")
    b1 = tf.Variable(tf.zeros([HIDDEN]), name="b1")
    w2 = tf.Variable(tf.random_normal([HIDDEN, CLASSES], stddev=0.05), name="w2")
    b2 = tf.Variable(tf.zeros([CLASSES]), name="b2")
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return x, y, loss, tf.train.AdamOptimizer(0.001).minimize(loss)


def run_benchmarks(tf, steps: int, layers: int) -> dict:
    """Times the same workloads with ``tf`` (ours or TensorFlow's compat.v1)."""
    results = {}
    rng = np.random.RandomState(0)
    images = rng.rand(BATCH, INPUT).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.randint(0, CLASSES, BATCH)]
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train_op = mlp(tf)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y: labels}
            results["MLP forward (loss)"] = per_call(lambda: sess.run(loss, feed), steps)
            results["MLP train step (Adam)"] = per_call(lambda: sess.run([train_op, loss], feed), steps)

    graph = tf.Graph()
    with graph.as_default():
        h = tf.placeholder(tf.float32, [None, WIDTH], name="x")
        weights = []
        for index in range(layers):
            w = tf.Variable(tf.zeros([WIDTH, WIDTH]), name=f"w{index}")
            weights.append(w)
            h = tf.tanh(tf.matmul(h, w))
        deep_loss = tf.reduce_sum(h)
        start = time.perf_counter()
        tf.gradients(deep_loss, weights)
        results[f"tf.gradients, {layers}-layer tanh stack"] = time.perf_counter() - start
        results[f"  ops in that graph (count)"] = len(graph.get_operations())
    return results


def numpy_floor(steps: int) -> float:
    """Seconds per step of the matmuls an MLP step needs (2 forward, 3 backward), in numpy directly."""
    rng = np.random.RandomState(0)
    x = rng.rand(BATCH, INPUT).astype(np.float32)
    w1, w2 = rng.rand(INPUT, HIDDEN).astype(np.float32), rng.rand(HIDDEN, CLASSES).astype(np.float32)

    def step():
        h = np.maximum(x @ w1, 0)
        d_logits = h @ w2
        d_h = d_logits @ w2.T
        return x.T @ d_h, h.T @ d_logits

    return per_call(step, steps)


def keep_freed_memory() -> bool:
    """glibc's mallopt: fixed 64 MiB mmap threshold and 256 MiB trim threshold; False where there is no glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # from glibc's malloc.h
    return bool(libc.mallopt(m_mmap_threshold, 64 << 20)) and bool(libc.mallopt(m_trim_threshold, 256 << 20))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="calls per timing round")
    parser.add_argument("--layers", type=int, default=100)
    parser.add_argument("--no-tf", action="store_true", help="time only this emulator")
    parser.add_argument("--mallopt", action="store_true", help="keep freed memory in the process (glibc)")
    args = parser.parse_args()
    if args.mallopt and not keep_freed_memory():
        print("--mallopt: no glibc here, ignored")
    import graph.compat.v1 as ours_tf
    ours = run_benchmarks(ours_tf, args.steps, args.layers)
    ours["numpy floor of a step (matmuls)"] = numpy_floor(args.steps)
    theirs = {}
    if not args.no_tf and not have_tensorflow():
        print(NO_TENSORFLOW)
    elif not args.no_tf:
        import tensorflow.compat.v1 as tf1
        tf1.disable_v2_behavior()
        tf1.logging.set_verbosity(tf1.logging.ERROR)
        theirs = run_benchmarks(tf1, args.steps, args.layers)
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, mallopt: {args.mallopt}")
    print(f"{'workload':40s} {'ours':>12s} {'tensorflow':>12s} {'TF / ours':>9s}")
    for key, value in ours.items():
        other = theirs.get(key)
        if "count" in key:
            print(f"{key:40s} {value:12d} {other if other is not None else '-':>12} {'':>9s}")
            continue
        other_text = f"{other * 1e3:10.3f}ms" if other else "           -"
        print(f"{key:40s} {value * 1e3:10.3f}ms {other_text} {ratio(value, other):>9s}")
    print(RATIO_LEGEND)


if __name__ == "__main__":
    main()
