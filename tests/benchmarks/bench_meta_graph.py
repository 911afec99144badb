"""Benchmark: `.meta` size and write time for N variables, here and in TensorFlow, side by side.

Run from the repository root: ``python tests/benchmarks/bench_meta_graph.py [N] [--model zeros|glorot]``
(not collected by pytest).  Each side runs in its own subprocess, builds the same TF1 graph
(N variables + one Saver), then times ``export_meta_graph`` (cold and warm) and
``Saver.save`` with and without ``write_meta_graph``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402

_WORKER = r"""
import json, os, sys, time
side, n, model, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
if side == "tensorflow":
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    export = tf.train.export_meta_graph
else:
    sys.path.insert(0, sys.argv[5])
    import graph.compat.v1 as tf
    from saver.meta_graph import export_meta_graph as export
result = {}
with tf.Graph().as_default():
    start = time.perf_counter()
    for i in range(n):
        if model == "zeros":
            tf.Variable(tf.zeros([10]), name="v%d" % i)
        else:
            tf.get_variable("v%d" % i, [10, 10])
    saver = tf.train.Saver()
    result["build_s"] = time.perf_counter() - start
    path = os.path.join(directory, side + ".meta")
    for label in ("export_cold_s", "export_warm_s"):
        start = time.perf_counter()
        export(path, saver_def=saver.saver_def)
        result[label] = time.perf_counter() - start
    result["meta_bytes"] = os.path.getsize(path)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for label, write_meta in (("save_with_meta_s", True), ("save_without_meta_s", False)):
            start = time.perf_counter()
            saver.save(sess, os.path.join(directory, side + "_ckpt"), write_meta_graph=write_meta)
            result[label] = time.perf_counter() - start
print("RESULT " + json.dumps(result))
"""


def run(side: str, n: int, model: str, directory: str) -> dict:
    """Runs the worker for ``side`` in a fresh interpreter; returns its timings."""
    completed = subprocess.run([sys.executable, "-c", _WORKER, side, str(n), model, directory, ROOT],
                               capture_output=True, text=True, check=False)
    for line in completed.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{side} worker failed:\n{completed.stderr[-3000:]}")


def main() -> None:
    """Prints the side-by-side table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--model", choices=("zeros", "glorot"), default="zeros")
    args = parser.parse_args()
    sides = ("tensorflow", "ours") if have_tensorflow() else ("ours",)
    with tempfile.TemporaryDirectory() as directory:
        results = {side: run(side, args.n, args.model, directory) for side in sides}
    print(f"{args.n} variables, model {args.model!r}")
    if "tensorflow" not in results:
        print(NO_TENSORFLOW)
    print(f"{'':22s}{'here':>14s}{'TensorFlow':>14s}{'TF / ours':>11s}")
    for key in ("meta_bytes", "build_s", "export_cold_s", "export_warm_s", "save_with_meta_s", "save_without_meta_s"):
        our_value, tf_value = results["ours"][key], results.get("tensorflow", {}).get(key)
        fmt = "{:>14,d}" if key == "meta_bytes" else "{:>14.3f}"
        tf_text = fmt.format(tf_value) if tf_value is not None else f"{'-':>14s}"
        print(f"{key:22s}" + fmt.format(our_value) + tf_text + f"{ratio(our_value, tf_value):>11s}")
    print(RATIO_LEGEND + " (For meta_bytes: TensorFlow's size over ours.)")

if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - t0:.1f} s)")
