"""Benchmark: one CNN training step (two 5x5 conv + 2x2 max-pool layers, dense 1024 and 10, Adam), beside TF.

Run from the repository root: ``python tests/benchmarks/bench_cnn.py [--no-tf] [--steps N]``.
Not collected by pytest (the file name does not start with ``test_``).  The model is TF's
"Deep MNIST for experts" network: 28x28x1 images, conv 5x5x32 + ReLU + max-pool 2x2, conv
5x5x64 + ReLU + max-pool 2x2, dense 7*7*64 -> 1024 + ReLU, dense 1024 -> 10, softmax cross
entropy, Adam(1e-4), batch 50.  Rows break the step down: the forward pass alone, then each
conv/pool kernel on its own (its op run on fed inputs), so a slow kernel shows by name.  The step
is timed again with the opt-in DFT convolutions (``TF1_SAVER_SPECTRAL_CONV=1``, graph.ops.conv_spectral)
beside TF's same default step.  The last
row is the BLAS bound: numpy's sgemm with the FLOPs of the second conv's forward
(``(50*14*14 x 5*5*32) @ (5*5*32 x 64)``) beside TensorFlow's whole Conv2D of that layer, so its ratio
is the best an im2col-onto-numpy kernel could reach (that row runs outside a Session, on OpenBLAS's
own threads; inside ``Session.run`` BLAS is pinned to one thread and our kernels split their
products over the intra-op pool, graph.ops.intra_op).  On a shared machine, time twice.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402

BATCH, SIDE, CLASSES = 50, 28, 10
SGEMM_FLOOR = "sgemm floor (conv2 FLOPs)"
SPECTRAL_STEP = "  with TF1_SAVER_SPECTRAL_CONV=1"


def per_call(function, calls: int, rounds: int = 5) -> float:
    """Median over ``rounds`` of the mean seconds per call over ``calls`` calls (after a warm-up)."""
    for _ in range(3):
        function()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def cnn(tf):
    """The two-conv-layer MNIST CNN with Adam in tf's default graph: (x, y, loss, train_op, tensors by name)."""
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, SIDE * SIDE], name="x")
    y = tf.placeholder(tf.float32, [None, CLASSES], name="y")

    def weight(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias(shape):
        return tf.Variable(tf.constant(0.1, shape=shape))

    image = tf.reshape(x, [-1, SIDE, SIDE, 1])
    conv1 = tf.nn.relu(tf.nn.conv2d(image, weight([5, 5, 1, 32]), [1, 1, 1, 1], "SAME") + bias([32]))
    pool1 = tf.nn.max_pool(conv1, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    conv2 = tf.nn.relu(tf.nn.conv2d(pool1, weight([5, 5, 32, 64]), [1, 1, 1, 1], "SAME") + bias([64]))
    pool2 = tf.nn.max_pool(conv2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    flat = tf.reshape(pool2, [-1, 7 * 7 * 64])
    dense = tf.nn.relu(tf.matmul(flat, weight([7 * 7 * 64, 1024])) + bias([1024]))
    logits = tf.matmul(dense, weight([1024, CLASSES])) + bias([CLASSES])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return x, y, loss, tf.train.AdamOptimizer(1e-4).minimize(loss)


def kernels(tf, steps: int) -> dict:
    """Each conv/pool op of the step alone, on fed inputs of the step's shapes."""
    rng = np.random.RandomState(1)
    results = {}
    graph = tf.Graph()
    with graph.as_default():
        images = tf.placeholder(tf.float32, [BATCH, 14, 14, 32])
        filters = tf.placeholder(tf.float32, [5, 5, 32, 64])
        grads = tf.placeholder(tf.float32, [BATCH, 14, 14, 64])
        pooled_in = tf.placeholder(tf.float32, [BATCH, 28, 28, 32])
        conv = tf.nn.conv2d(images, filters, [1, 1, 1, 1], "SAME")
        backprop_input = tf.nn.conv2d_backprop_input([BATCH, 14, 14, 32], filters, grads, [1, 1, 1, 1], "SAME")
        backprop_filter = tf.nn.conv2d_backprop_filter(images, [5, 5, 32, 64], grads, [1, 1, 1, 1], "SAME")
        pool = tf.nn.max_pool(pooled_in, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        pool_grad = tf.gradients(pool, pooled_in, grad_ys=tf.ones([BATCH, 14, 14, 32]))[0]
        # The first layer: one input channel (the tap-major im2col of graph.ops.conv_planes).
        gray = tf.placeholder(tf.float32, [BATCH, SIDE, SIDE, 1])
        gray_filters = tf.placeholder(tf.float32, [5, 5, 1, 32])
        gray_grads = tf.placeholder(tf.float32, [BATCH, SIDE, SIDE, 32])
        gray_conv = tf.nn.conv2d(gray, gray_filters, [1, 1, 1, 1], "SAME")
        gray_input = tf.nn.conv2d_backprop_input([BATCH, SIDE, SIDE, 1], gray_filters, gray_grads, [1, 1, 1, 1],
                                                 "SAME")
        gray_filter = tf.nn.conv2d_backprop_filter(gray, [5, 5, 1, 32], gray_grads, [1, 1, 1, 1], "SAME")
        feed = {images: rng.rand(BATCH, 14, 14, 32).astype(np.float32),
                filters: rng.rand(5, 5, 32, 64).astype(np.float32),
                grads: rng.rand(BATCH, 14, 14, 64).astype(np.float32),
                pooled_in: rng.rand(BATCH, 28, 28, 32).astype(np.float32),
                gray: rng.rand(BATCH, SIDE, SIDE, 1).astype(np.float32),
                gray_filters: rng.rand(5, 5, 1, 32).astype(np.float32),
                gray_grads: rng.rand(BATCH, SIDE, SIDE, 32).astype(np.float32)}
        with tf.Session(graph=graph) as sess:
            for label, tensor in (("  Conv2D 14x14x32 -> 64", conv), ("  Conv2DBackpropInput", backprop_input),
                                  ("  Conv2DBackpropFilter", backprop_filter),
                                  ("  Conv2D 28x28x1 -> 32", gray_conv), ("  Conv2DBackpropInput 28x28x1", gray_input),
                                  ("  Conv2DBackpropFilter 28x28x1", gray_filter), ("  MaxPool 28x28x32", pool),
                                  ("  MaxPoolGrad 28x28x32", pool_grad)):
                results[label] = per_call(lambda t=tensor: sess.run(t, feed), steps)
    return results


def step_and_forward(tf, images, labels, steps: int) -> tuple[float, float]:
    """Seconds per training step and per forward pass of the CNN, in a fresh graph of ``tf``."""
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train_op = cnn(tf)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y: labels}
            return (per_call(lambda: sess.run([train_op, loss], feed), steps),
                    per_call(lambda: sess.run(loss, feed), steps))


def run_benchmarks(tf, steps: int, ours: bool) -> dict:
    """Times the same workloads with ``tf`` (ours when ``ours``, else TensorFlow's compat.v1)."""
    rng = np.random.RandomState(0)
    images = rng.rand(BATCH, SIDE * SIDE).astype(np.float32)
    labels = np.eye(CLASSES, dtype=np.float32)[rng.randint(0, CLASSES, BATCH)]
    results = {}
    results["CNN train step (Adam)"], results["CNN forward (loss)"] = step_and_forward(tf, images, labels, steps)
    if ours:  # the same step with the opt-in DFT convolutions (graph.ops.conv_spectral)
        from graph.ops import conv_spectral
        default, conv_spectral.ENABLED = conv_spectral.ENABLED, True
        try:
            results[SPECTRAL_STEP] = step_and_forward(tf, images, labels, steps)[0]
        finally:
            conv_spectral.ENABLED = default
    else:
        results[SPECTRAL_STEP] = results["CNN train step (Adam)"]
    results.update(kernels(tf, steps))
    if ours:
        columns = rng.rand(BATCH * 14 * 14, 5 * 5 * 32).astype(np.float32)
        filters = rng.rand(5 * 5 * 32, 64).astype(np.float32)
        results[SGEMM_FLOOR] = per_call(lambda: columns @ filters, steps)
    else:  # TF's own conv2 forward: what the sgemm alone is up against
        results[SGEMM_FLOOR] = results["  Conv2D 14x14x32 -> 64"]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="calls per timing round")
    parser.add_argument("--no-tf", action="store_true", help="time only this emulator")
    args = parser.parse_args()
    import graph.compat.v1 as ours_tf
    ours = run_benchmarks(ours_tf, args.steps, True)
    theirs = {}
    if not args.no_tf and not have_tensorflow():
        print(NO_TENSORFLOW)
    elif not args.no_tf:
        import tensorflow.compat.v1 as tf1
        tf1.disable_v2_behavior()
        tf1.logging.set_verbosity(tf1.logging.ERROR)
        theirs = run_benchmarks(tf1, args.steps, False)
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, batch {BATCH}")
    print(f"{'workload':32s} {'ours':>12s} {'tensorflow':>12s} {'TF / ours':>9s}")
    for key, value in ours.items():
        other = theirs.get(key)
        other_text = f"{other * 1e3:10.3f}ms" if other else "           -"
        print(f"{key:32s} {value * 1e3:10.3f}ms {other_text} {ratio(value, other):>9s}")
    print(RATIO_LEGEND)


if __name__ == "__main__":
    main()
