"""Benchmark: our bundle writer/reader side by side with TensorFlow's (a script; pytest does not collect it).

Run:  /work/venv/bin/python tests/benchmarks/bench_bundle.py [--gib 1.0] [--keys 10000] [--no-tf]

Measures, on one machine in one run:
  * writing a ~1 GiB V2 checkpoint (a few large float32 tensors + many small ones + strings),
  * reading every tensor back (ours: BundleReader.lookup; TF: load_checkpoint().get_tensor),
  * opening a 10,000-key index and listing its shapes,
  * peak Python-heap memory during our read (tracemalloc) and the process's max RSS,
and prints our time / TF time ratios.  Our phases run before TensorFlow is imported so the RSS
figure is ours alone.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from saver.bundle import BundleReader, write_checkpoint  # noqa: E402
from saver.reader import load_checkpoint  # noqa: E402


def make_tensors(gib: float) -> dict[str, np.ndarray]:
    """A few large float32 tensors (7/8 of the bytes) plus 2000 small ones and some strings."""
    rng = np.random.default_rng(0)
    total = int(gib * (1 << 30))
    large = total * 7 // 8 // 4
    tensors = {f"model/large_{i}/kernel": rng.standard_normal(large // 4, dtype=np.float32) for i in range(4)}
    small = (total - 4 * (large // 4) * 4) // 2000 // 4
    for i in range(2000):
        tensors[f"model/block_{i:04d}/bias"] = rng.standard_normal(small, dtype=np.float32)
    tensors["vocab"] = np.array([b"token%d" % i for i in range(10000)], dtype=object)
    tensors["global_step"] = np.int64(1234)
    return tensors


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def read_all_ours(prefix: str, names) -> int:
    total = 0
    with BundleReader(prefix) as reader:
        for name in names:
            total += reader.lookup(name).nbytes
    return total


def drop_caches_hint(path: str) -> None:
    """Best effort: ask the kernel to forget the files' pages (so reads hit the disk less unfairly)."""
    for name in os.listdir(path):
        try:
            fd = os.open(os.path.join(path, name), os.O_RDONLY)
            os.fsync(fd)  # dirty pages cannot be dropped
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        except (OSError, AttributeError):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--keys", type=int, default=10000)
    parser.add_argument("--no-tf", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="bench_bundle_")
    results: dict[str, float] = {}
    try:
        tensors = make_tensors(args.gib)
        names = sorted(tensors)
        nbytes = sum(np.asarray(v).nbytes for v in tensors.values() if np.asarray(v).dtype != object)
        print(f"checkpoint: {len(tensors)} tensors, {nbytes / (1 << 30):.2f} GiB numeric")

        results["ours_write"], prefix = timed(write_checkpoint, os.path.join(work, "ours", "ckpt"), tensors)
        many = {f"scope_{i // 100:03d}/layer_{i:05d}/weights": np.float32(i) for i in range(args.keys)}
        many_prefix = write_checkpoint(os.path.join(work, "many", "ckpt"), many)
        results["ours_open_index"], reader = timed(BundleReader, many_prefix)
        results["ours_shape_map"], _ = timed(lambda: load_checkpoint(many_prefix).get_variable_to_shape_map())
        results["ours_one_lookup"], _ = timed(reader.lookup, "scope_050/layer_05000/weights")
        read_all_ours(prefix, names)  # warm the page cache
        results["ours_read_hot"], _ = timed(read_all_ours, prefix, names)
        tracemalloc.start()  # a separate traced run: tracemalloc slows allocation down
        read_all_ours(prefix, names)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        largest = max(np.asarray(v).nbytes for v in tensors.values())
        results["ours_read_peak_mib"] = peak / (1 << 20)
        rss_ours = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        tf_results: dict[str, float] = {}
        if not args.no_tf:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as tf  # noqa: PLC0415 - imported late on purpose (RSS above is ours alone)

            tf_tensors = [tf.constant(tensors[n]) for n in names]
            tf_prefix = os.path.join(work, "tf", "ckpt")
            os.makedirs(os.path.dirname(tf_prefix))
            tf_results["ours_write"], _ = timed(lambda: tf.raw_ops.SaveV2(
                prefix=tf_prefix, tensor_names=names, shape_and_slices=[""] * len(names), tensors=tf_tensors))
            del tf_tensors

            def read_all_tf():
                ckpt = tf.train.load_checkpoint(tf_prefix)
                return sum(np.asarray(ckpt.get_tensor(n)).nbytes for n in names)
            read_all_tf()
            tf_results["ours_read_hot"], _ = timed(read_all_tf)
            tf.raw_ops.SaveV2(prefix=os.path.join(work, "tfmany", "ckpt"), tensor_names=sorted(many),
                              shape_and_slices=[""] * len(many), tensors=[tf.constant(many[n]) for n in sorted(many)])
            tf_many = os.path.join(work, "tfmany", "ckpt")
            tf_results["ours_open_index"], tf_reader = timed(tf.train.load_checkpoint, tf_many)
            tf_results["ours_shape_map"], _ = timed(
                lambda: tf.train.load_checkpoint(os.path.join(work, "tfmany", "ckpt")).get_variable_to_shape_map())
            tf_results["ours_one_lookup"], _ = timed(tf_reader.get_tensor, "scope_050/layer_05000/weights")
            same_index = open(prefix + ".index", "rb").read() == open(tf_prefix + ".index", "rb").read()
            for _ in range(2):  # cold reads, alternating who goes first
                for who in ("ours", "tf"):
                    drop_caches_hint(os.path.join(work, "ours"))
                    drop_caches_hint(os.path.join(work, "tf"))
                    time.sleep(0.5)
                    if who == "ours":
                        seconds, _ = timed(read_all_ours, prefix, names)
                        results["ours_read"] = min(seconds, results.get("ours_read", seconds))
                    else:
                        seconds, _ = timed(read_all_tf)
                        tf_results["ours_read"] = min(seconds, tf_results.get("ours_read", seconds))
        else:
            drop_caches_hint(os.path.join(work, "ours"))
            results["ours_read"], _ = timed(read_all_ours, prefix, names)
        print(f"\n{'phase':<28}{'ours':>10}{'tensorflow':>12}{'ratio':>8}")
        labels = {"ours_write": "write ~%.1f GiB" % args.gib, "ours_read": "read all (cold, best of 2)",
                  "ours_read_hot": "read all (page cache)",
                  "ours_open_index": f"open {args.keys}-key index", "ours_shape_map": "shape map (open+list)",
                  "ours_one_lookup": "one lookup in it"}
        for key, label in labels.items():
            theirs = tf_results.get(key)
            ratio = f"{results[key] / theirs:7.2f}x" if theirs else "      -"
            theirs_text = f"{theirs:10.3f}s" if theirs else "         -"
            print(f"{label:<28}{results[key]:9.3f}s{theirs_text:>12}{ratio:>8}")
        print(f"\nour read: tracemalloc peak {results['ours_read_peak_mib']:.0f} MiB "
              f"(largest tensor {largest / (1 << 20):.0f} MiB); max RSS before TF import {rss_ours:.0f} MiB "
              f"(includes the {nbytes / (1 << 20):.0f} MiB of source arrays)")
        gib = nbytes / (1 << 30)
        print(f"our throughput: write {gib / results['ours_write']:.2f} GiB/s, read {gib / results['ours_read']:.2f} "
              f"GiB/s cold, {gib / results['ours_read_hot']:.2f} GiB/s from the page cache")
        if not args.no_tf:
            print(f"our .index identical to TF's for the same tensors: {same_index}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
