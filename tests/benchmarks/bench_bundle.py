"""Benchmark: our bundle writer/reader side by side with TensorFlow's (a script; pytest does not collect it).

Run from the repository root:  python tests/benchmarks/bench_bundle.py [--gib 1.0] [--keys 10000] [--repeat 3] [--no-tf]

Measures, on one machine in one run, ours and TensorFlow's alternately (who goes first alternates
too), ``--repeat`` times each, and reports the median and the best:
  * writing a ~1 GiB V2 checkpoint (4 large float32 tensors + 2000 small ones + strings), from
    arrays already in memory to both files renamed into place (no fsync: TF does none);
  * reading every tensor back from the page cache (ours: BundleReader.lookup, TF:
    load_checkpoint().get_tensor) and cold (each file fsync'ed and dropped with
    POSIX_FADV_DONTNEED first);
  * opening a 10,000-key index, listing its shapes (open + get_variable_to_shape_map), one lookup;
  * peak Python-heap memory during our read (tracemalloc) and the process's max RSS before TF.

Page-cache noise: on a VM, the first writes of a process touch memory the host has not
backed yet, which costs seconds per GiB for whoever goes first; a warm-up write of each
side (not timed) and the alternation keep that out of the ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402
from saver.format.bundle import BundleReader, write_checkpoint  # noqa: E402
from saver.storage.reader import load_checkpoint  # noqa: E402


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


def drop_caches(path: str) -> None:
    """Best effort: make the kernel forget the files' pages (fsync first: dirty pages cannot be dropped)."""
    for name in os.listdir(path):
        try:
            fd = os.open(os.path.join(path, name), os.O_RDONLY)
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        except (OSError, AttributeError):
            pass


def fresh_dir(path: str) -> str:
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


class Phases:
    """Timings per (phase, side); median and best."""

    def __init__(self):
        self.times: dict[tuple[str, str], list[float]] = {}

    def add(self, phase: str, side: str, seconds: float) -> None:
        self.times.setdefault((phase, side), []).append(seconds)

    def get(self, phase: str, side: str, how=statistics.median) -> float | None:
        values = self.times.get((phase, side))
        return how(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--keys", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-tf", action="store_true")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="bench_bundle_")
    phases = Phases()
    try:
        tensors = make_tensors(args.gib)
        names = sorted(tensors)
        nbytes = sum(np.asarray(v).nbytes for v in tensors.values() if np.asarray(v).dtype != object)
        print(f"checkpoint: {len(tensors)} tensors, {nbytes / (1 << 30):.2f} GiB numeric; "
              f"{args.repeat} alternating rounds, median (best)")
        ours_dir, tf_dir = os.path.join(work, "ours"), os.path.join(work, "tf")
        prefix, tf_prefix = os.path.join(ours_dir, "ckpt"), os.path.join(tf_dir, "ckpt")
        many = {f"scope_{i // 100:03d}/layer_{i:05d}/weights": np.float32(i) for i in range(args.keys)}
        many_prefix = write_checkpoint(os.path.join(work, "many", "ckpt"), many)

        write_checkpoint(fresh_dir(ours_dir) + "/ckpt", tensors)  # warm-up, not timed
        for _ in range(args.repeat):
            fresh_dir(ours_dir)
            phases.add("write", "ours", timed(write_checkpoint, prefix, tensors)[0])
        read_all_ours(prefix, names)
        for _ in range(args.repeat):
            phases.add("read_hot", "ours", timed(read_all_ours, prefix, names)[0])
        for _ in range(args.repeat):
            phases.add("open_index", "ours", timed(BundleReader, many_prefix)[0])
            phases.add("shape_map", "ours", timed(lambda: load_checkpoint(many_prefix).get_variable_to_shape_map())[0])
            reader = BundleReader(many_prefix)
            phases.add("one_lookup", "ours", timed(reader.lookup, "scope_050/layer_05000/weights")[0])
        tracemalloc.start()  # a separate traced run: tracemalloc slows allocation down
        read_all_ours(prefix, names)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        largest = max(np.asarray(v).nbytes for v in tensors.values())
        rss_ours = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

        same_index = None
        with_tf = not args.no_tf and have_tensorflow()
        if not args.no_tf and not with_tf:
            print(NO_TENSORFLOW)
        if with_tf:
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            import tensorflow as tf  # noqa: PLC0415 - imported late on purpose (RSS above is ours alone)

            tf_tensors = [tf.constant(tensors[n]) for n in names]

            def write_tf():
                tf.raw_ops.SaveV2(prefix=tf_prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                                  tensors=tf_tensors)

            def read_all_tf():
                ckpt = tf.train.load_checkpoint(tf_prefix)
                return sum(np.asarray(ckpt.get_tensor(n)).nbytes for n in names)

            fresh_dir(tf_dir)
            write_tf()  # warm-up, not timed
            for round_ in range(args.repeat):  # writes, alternating who goes first
                for side in (("ours", "tf") if round_ % 2 else ("tf", "ours")):
                    if side == "ours":
                        fresh_dir(ours_dir)
                        phases.add("write", "ours", timed(write_checkpoint, prefix, tensors)[0])
                    else:
                        fresh_dir(tf_dir)
                        phases.add("write", "tf", timed(write_tf)[0])
            read_all_tf()
            for _ in range(args.repeat):
                phases.add("read_hot", "tf", timed(read_all_tf)[0])
                phases.add("read_hot", "ours", timed(read_all_ours, prefix, names)[0])
            tf_many = os.path.join(work, "tfmany", "ckpt")
            tf.raw_ops.SaveV2(prefix=tf_many, tensor_names=sorted(many), shape_and_slices=[""] * len(many),
                              tensors=[tf.constant(many[n]) for n in sorted(many)])
            for _ in range(args.repeat):
                seconds, tf_reader = timed(tf.train.load_checkpoint, tf_many)
                phases.add("open_index", "tf", seconds)
                phases.add("shape_map", "tf", timed(lambda: tf.train.load_checkpoint(tf_many).get_variable_to_shape_map())[0])
                phases.add("one_lookup", "tf", timed(tf_reader.get_tensor, "scope_050/layer_05000/weights")[0])
            same_index = open(prefix + ".index", "rb").read() == open(tf_prefix + ".index", "rb").read()
            for round_ in range(args.repeat):  # cold reads, alternating who goes first
                for side in (("ours", "tf") if round_ % 2 else ("tf", "ours")):
                    drop_caches(ours_dir)
                    drop_caches(tf_dir)
                    time.sleep(0.5)
                    if side == "ours":
                        phases.add("read_cold", "ours", timed(read_all_ours, prefix, names)[0])
                    else:
                        phases.add("read_cold", "tf", timed(read_all_tf)[0])
        else:
            for _ in range(args.repeat):
                drop_caches(ours_dir)
                phases.add("read_cold", "ours", timed(read_all_ours, prefix, names)[0])

        print(f"\n{'phase':<30}{'ours':>18}{'tensorflow':>18}{'TF/ours':>9}")
        labels = {"write": "write ~%.1f GiB" % args.gib, "read_cold": "read all (cold)",
                  "read_hot": "read all (page cache)", "open_index": f"open {args.keys}-key index",
                  "shape_map": "shape map (open+list)", "one_lookup": "one lookup in it"}
        for phase, label in labels.items():
            ours, ours_best = phases.get(phase, "ours"), phases.get(phase, "ours", min)
            theirs, theirs_best = phases.get(phase, "tf"), phases.get(phase, "tf", min)
            speedup = ratio(ours, theirs)
            theirs_text = f"{theirs * 1e3:8.1f} ({theirs_best * 1e3:.1f})ms" if theirs else "-"
            print(f"{label:<30}{f'{ours * 1e3:8.1f} ({ours_best * 1e3:.1f})ms':>18}{theirs_text:>18}{speedup:>9}")
        print(f"({RATIO_LEGEND} Times in ms, median (best).)")
        print(f"\nour read: tracemalloc peak {peak / (1 << 20):.0f} MiB "
              f"(largest tensor {largest / (1 << 20):.0f} MiB); max RSS before TF import {rss_ours:.0f} MiB "
              f"(includes the {nbytes / (1 << 20):.0f} MiB of source arrays)")
        gib = nbytes / (1 << 30)
        print(f"our throughput: write {gib / phases.get('write', 'ours'):.2f} GiB/s, read "
              f"{gib / phases.get('read_cold', 'ours'):.2f} GiB/s cold, "
              f"{gib / phases.get('read_hot', 'ours'):.2f} GiB/s from the page cache")
        if same_index is not None:
            print(f"our .index identical to TF's for the same tensors: {same_index}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
