"""Initializing and restoring a 1 GiB model, ours beside TensorFlow (issue 15); not collected by pytest.

Run from the repository root: ``python tests/benchmarks/bench_model_memory.py [--mib 1024] [--parts 16 64]``.

1. init:    a fresh process builds ``--parts`` float32 variables of ``--mib`` MiB in total, each initialized by
            ``random_uniform``, resets its peak RSS (/proc/self/clear_refs) and runs the initializer: the
            peak RSS growth over the baseline in model sizes (issue 15: at most 1.05), and the seconds.
2. restore: the model is saved once; then a fresh process times building the graph, ``Saver()`` and
            ``restore`` (what restoring costs a new training job), and reports the restore's peak RSS
            growth in model sizes (1.0 = read straight into the variables' storage, no second copy).
Each library runs in its own subprocesses, so peaks are per library; ratio = TF / ours (above 1: we are
faster or smaller).
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
MIB = 1 << 20
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import NO_TENSORFLOW, RATIO_LEGEND, have_tensorflow, ratio  # noqa: E402


def _status(field: str) -> int:
    with open("/proc/self/status") as file:
        for line in file:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as file:
        file.write("5")  # VmHWM back to the current RSS


def _import(lib: str):
    if lib == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        return tf
    sys.path.insert(0, ROOT)
    import graph.compat.v1 as tf
    return tf


def _model(tf, total_mib: int, parts: int):
    elements = total_mib * MIB // 4 // parts
    variables = [tf.Variable(tf.random_uniform([elements], seed=index + 1), name=f"layer{index}")
                 for index in range(parts)]
    return variables, tf.train.Saver(variables)


def run_init(lib: str, total_mib: int, parts: int, directory: str) -> dict:
    """Initialize (and save, for the restore run) the model; peak RSS growth of the initializer."""
    tf = _import(lib)
    with tf.Graph().as_default():
        _, saver = _model(tf, total_mib, parts)
        init = tf.global_variables_initializer()
        with tf.Session() as sess:
            baseline = _status("VmRSS")
            _reset_peak()
            mark = time.perf_counter()
            sess.run(init)
            seconds = time.perf_counter() - mark
            growth = _status("VmHWM") - baseline
            saver.save(sess, os.path.join(directory, "model"), write_meta_graph=False)
    return {"init_seconds": seconds, "init_peak_in_models": growth / (total_mib * MIB)}


def run_restore(lib: str, total_mib: int, parts: int, directory: str) -> dict:
    """Build the graph, the Saver and restore in this new process; time all three, peak of the restore."""
    tf = _import(lib)
    mark = time.perf_counter()
    with tf.Graph().as_default():
        _, saver = _model(tf, total_mib, parts)
        with tf.Session() as sess:
            baseline = _status("VmRSS")
            _reset_peak()
            restore_mark = time.perf_counter()
            saver.restore(sess, os.path.join(directory, "model"))
            end = time.perf_counter()
            growth = _status("VmHWM") - baseline
    return {"graph+Saver+restore_s": end - mark, "restore_only_s": end - restore_mark,
            "restore_peak_in_models": growth / (total_mib * MIB)}


def _child(lib: str, which: str, total_mib: int, parts: int, directory: str) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", lib, which, str(total_mib),
                          str(parts), directory], capture_output=True, text=True, check=False, env=env, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{lib} {which} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="model size in MiB (default 1024)")
    parser.add_argument("--parts", type=int, nargs="+", default=[16, 64], help="variables the model is split in")
    parser.add_argument("--no-tf", action="store_true", help="ours only")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        lib, which, total, parts, directory = args.child
        run = {"init": run_init, "restore": run_restore}[which]
        print(json.dumps(run(lib, int(total), int(parts), directory)))
        return
    libs = ["ours"] + (["tf"] if have_tensorflow() and not args.no_tf else [])
    if "tf" not in libs:
        print(NO_TENSORFLOW)
    for parts in args.parts:
        results = {}
        for lib in libs:
            with tempfile.TemporaryDirectory() as directory:
                results[lib] = {**_child(lib, "init", args.mib, parts, directory),
                                **_child(lib, "restore", args.mib, parts, directory)}
        print(f"\n{args.mib} MiB model in {parts} variables of {args.mib // parts} MiB (random_uniform)")
        print(f"  {'':26s}{'ours':>10s}{'TensorFlow':>12s}{'TF / ours':>11s}")
        for key, value in results["ours"].items():
            theirs = results.get("tf", {}).get(key)
            theirs_text = f"{theirs:12.3f}" if theirs is not None else f"{'-':>12s}"
            print(f"  {key:26s}{value:10.3f}{theirs_text}{ratio(value, theirs):>11s}")
    print(f"\n{RATIO_LEGEND}")


if __name__ == "__main__":
    main()
