"""Bytes a remote (fsspec) store serves for each read, against the checkpoint's size (issue 15).

Not collected by pytest; run from the repository root:
``python tests/benchmarks/bench_remote_bytes.py [--tensors 1000] [--elements 25000] [--no-v1]``.

A checkpoint of ``--tensors`` float32 tensors is streamed to an in-memory store that counts the bytes
and requests it serves (a MemoryFileSystem subclass, ``countmem://``); then ``list_variables``,
``load_checkpoint`` + one ``get_tensor``, and ``Saver.restore`` of the whole model are measured, for
a V2 bundle and for the same tensors in one V1 table (SavedTensorSlices, read through its SSTable
index by block ranges).  Before ranged reads every one of them downloaded the whole checkpoint.
TensorFlow reads remote checkpoints through its own file systems (no fsspec), so there is no TF column.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import fsspec  # noqa: E402
from fsspec.implementations.memory import MemoryFileSystem  # noqa: E402


class CountingFileSystem(MemoryFileSystem):
    """An in-memory store of its own that counts the bytes and requests it serves."""

    protocol = "countmem"
    store: dict = {}
    pseudo_dirs = [""]
    served = 0
    requests = 0

    @classmethod
    def _strip_protocol(cls, path):
        return super()._strip_protocol(path.replace("countmem://", "memory://", 1))

    def cat_file(self, path, start=None, end=None, **kwargs):
        data = super().cat_file(path, start=start, end=end, **kwargs)
        CountingFileSystem.served += len(data)
        CountingFileSystem.requests += 1
        return data


def _measure(label: str, size: int, function) -> None:
    CountingFileSystem.served = CountingFileSystem.requests = 0
    function()
    served = CountingFileSystem.served
    print(f"  {label:34s}{served / 1e3:12.1f} kB{CountingFileSystem.requests:9d}{served / size * 100:11.3f}%")


def _measure_reads(url: str, size: int, values: dict) -> None:
    import graph.compat.v1 as tf
    from saver.storage.reader import list_variables, load_checkpoint
    print(f"  {'read':34s}{'served':>15s}{'requests':>9s}{'of ckpt':>12s}")
    _measure("list_variables", size, lambda: list_variables(url))
    names = sorted(values)
    key = names[len(names) // 2]

    def one_tensor():
        with load_checkpoint(url) as reader:
            reader.get_tensor(key)
    _measure("load_checkpoint + get_tensor(one)", size, one_tensor)
    with tf.Graph().as_default():
        variables = [tf.Variable(tf.zeros(values[name].shape), name=name.split("/")[0]) for name in names]
        saver = tf.train.Saver({name: v for name, v in zip(names, variables)})
        with tf.Session() as sess:
            _measure("Saver.restore (every tensor)", size, lambda: saver.restore(sess, url))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tensors", type=int, default=1000)
    parser.add_argument("--elements", type=int, default=25000, help="float32 elements per tensor")
    parser.add_argument("--no-v1", action="store_true", help="skip the V1 table (its writer encodes protobufs)")
    args = parser.parse_args()
    fsspec.register_implementation("countmem", CountingFileSystem, clobber=True)
    from saver.format.bundle import write_checkpoint
    from saver.format.v1 import write_v1_checkpoint
    url = "countmem://bench/model.ckpt"
    rng = np.random.default_rng(0)
    values = {f"layer{i}/kernel": rng.standard_normal(args.elements, dtype=np.float32) for i in range(args.tensors)}
    write_checkpoint(url, values)
    fs, path = fsspec.core.url_to_fs(url)
    size = fs.size(path + ".index") + fs.size(path + ".data-00000-of-00001")
    print(f"V2 checkpoint: {size / 1e6:.1f} MB ({args.tensors} tensors of {args.elements * 4 / 1e3:.0f} kB) at {url}")
    _measure_reads(url, size, values)
    if args.no_v1:
        return
    v1_url = "countmem://bench/model-v1.ckpt"
    write_v1_checkpoint(v1_url, values)
    size = fs.size(fsspec.core.url_to_fs(v1_url)[1])
    print(f"V1 table: {size / 1e6:.1f} MB (the same tensors) at {v1_url}")
    _measure_reads(v1_url, size, values)


if __name__ == "__main__":
    main()
