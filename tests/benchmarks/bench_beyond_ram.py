"""Checkpoints larger than the memory a process may use (issue 15): every command under an address-space limit.

Not collected by pytest; run from the repository root:
``python tests/benchmarks/bench_beyond_ram.py [--gib 3] [--headroom-mib 384] [--keep DIR]``.

A checkpoint of ``--gib`` GiB (float32 tensors of 1 GiB each, one of 256 MiB, a few small ones) is
written once.  Each operation then runs in a fresh process whose address space is capped with
``resource.setrlimit(RLIMIT_AS)`` at its own size after imports plus ``--headroom-mib``: several
times smaller than the checkpoint, and smaller than its largest tensor.  Printed per operation: the
exit code, the wall time, the peak RSS growth over the process's baseline (VmHWM after
/proc/self/clear_refs), the limit, and the checkpoint's size over that peak.  ``load_variable`` reads
the 256 MiB tensor (the one result that must fit), so its peak is that tensor plus the chunks.
TensorFlow has no such commands (and its CheckpointReader returns whole tensors): no TF column.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIB = 1 << 20
GIB = 1 << 30

_CHILD = r"""
import io, json, os, resource, sys, time
sys.path.insert(0, {root!r})
def status(field):
    with open("/proc/self/status") as file:
        for line in file:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
from saver.cli import main
from saver.storage.reader import load_variable
import numpy as np
limit = status("VmSize") + {headroom}
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
with open("/proc/self/clear_refs", "w") as file:
    file.write("5")  # resets VmHWM to the current RSS
base = status("VmRSS")
start = time.perf_counter()
argv = {argv!r}
if argv[0] == "load_variable":
    value = load_variable(argv[1], argv[2])
    code = 0 if value.size else 1
else:
    code = main(argv, out=io.StringIO(), err=sys.stderr)
print(json.dumps({{"code": code, "seconds": time.perf_counter() - start, "peak": status("VmHWM") - base,
                  "limit": limit}}))
"""


def _child(argv: list[str], headroom: int) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MALLOC_ARENA_MAX="2")
    out = subprocess.run([sys.executable, "-c", _CHILD.format(root=ROOT, argv=argv, headroom=headroom)],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    if out.returncode != 0:
        return {"code": out.returncode, "seconds": float("nan"), "peak": 0, "limit": 0,
                "error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _write_checkpoint(prefix: str, gib: int) -> int:
    """Writes ``gib`` 1 GiB float32 tensors, one of 256 MiB and small ones; returns the data file's size."""
    from saver.format.bundle_writer import BundleWriter
    rng = np.random.default_rng(0)
    with BundleWriter(prefix) as writer:
        for index in range(gib):
            value = np.empty(GIB // 4, np.float32)
            for start in range(0, value.size, 1 << 24):  # filled in pieces: the parent stays near 1 GiB
                value[start:start + (1 << 24)] = rng.standard_normal(min(1 << 24, value.size - start),
                                                                     dtype=np.float32)
            writer.add(f"layer{index}/kernel", value)
            del value
        writer.add("medium/kernel", rng.standard_normal(64 * MIB, dtype=np.float32))
        writer.add("global_step", np.int64(1000))
        writer.add("names", np.array([b"a", b"b"], dtype=object))
    return os.path.getsize(prefix + ".data-00000-of-00001") + os.path.getsize(prefix + ".index")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=int, default=3, help="1 GiB tensors in the checkpoint (default 3)")
    parser.add_argument("--headroom-mib", type=int, default=384, help="address space allowed over the imports")
    parser.add_argument("--keep", help="work in this directory and keep it (default: a removed temp dir)")
    args = parser.parse_args()
    directory = args.keep or tempfile.mkdtemp(prefix="bench-beyond-ram-")
    os.makedirs(directory, exist_ok=True)
    headroom = args.headroom_mib * MIB
    try:
        prefix = os.path.join(directory, "big.ckpt")
        start = time.perf_counter()
        size = _write_checkpoint(prefix, args.gib)
        print(f"checkpoint: {size / GIB:.2f} GiB ({args.gib} tensors of 1 GiB, 256 MiB, small) written in "
              f"{time.perf_counter() - start:.1f} s; each process capped at its size after imports + "
              f"{args.headroom_mib} MiB (RLIMIT_AS)")
        out = lambda name: os.path.join(directory, name)  # noqa: E731
        operations = [
            ("inspect", ["inspect", prefix]),
            ("diff A A", ["diff", prefix, prefix]),
            ("rename", ["rename", prefix, "--add-prefix", "model/", "-o", out("renamed")]),
            ("keep", ["keep", prefix, "layer*", "-o", out("kept")]),
            ("drop", ["drop", prefix, "layer0/*", "-o", out("dropped")]),
            ("diff A kept", ["diff", prefix, out("kept")]),
            ("export npz", ["export", prefix, out("big.npz")]),
            ("export safetensors", ["export", prefix, out("big.safetensors")]),
            ("load_variable 256 MiB", ["load_variable", prefix, "medium/kernel"]),
        ]
        print(f"{'operation':24s} {'exit':>4s} {'seconds':>8s} {'peak RSS MiB':>13s} {'AS limit MiB':>13s} "
              f"{'ckpt / peak':>12s}")
        for name, argv in operations:
            result = _child(argv, headroom)
            peak = max(result["peak"], 1)
            print(f"{name:24s} {result['code']:4d} {result['seconds']:8.1f} {result['peak'] / MIB:13.1f} "
                  f"{result['limit'] / MIB:13.0f} {size / peak:11.1f}x" + (f"  {result['error']}"
                                                                          if "error" in result else ""))
            for produced in ("renamed", "kept", "dropped"):  # disk: keep one output at a time
                if argv[-1] == out(produced) and produced != "kept":
                    for file in os.listdir(directory):
                        if file.startswith(produced + "."):
                            os.remove(os.path.join(directory, file))
            if argv[0] == "export":
                os.remove(argv[-1])
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
