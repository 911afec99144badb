"""A small TF1 model whose variables take known values per save, shared by the safety tests."""

from __future__ import annotations

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import graph.compat.v1 as tf  # noqa: E402

__all__ = ["Model", "expected_values", "values_equal", "tf"]


def expected_values(step: int) -> dict[str, object]:
    """Checkpoint key -> the value every variable holds when save number ``step`` is made."""
    return {
        "a": (np.arange(6, dtype=np.float32).reshape(2, 3) + 10.0 * step),
        "b": np.int64(step),
        "s": ("save-%d" % step).encode() * (1 + step % 3),
        "emb": np.arange(8, dtype=np.float64).reshape(4, 2) * (step + 1),
    }


def values_equal(found: dict, step: int) -> bool:
    """True when ``found`` (key -> value) equals the values of save ``step`` exactly (bit for bit)."""
    want = expected_values(step)
    if set(found) != set(want):
        return False
    for key, value in want.items():
        got = found[key]
        if isinstance(value, bytes):
            got = got.item() if isinstance(got, np.ndarray) else got
            if got != value:
                return False
        elif not (np.asarray(got).dtype == np.asarray(value).dtype and np.array_equal(got, value)):
            return False
    return True


class Model:
    """A graph with a float matrix, an int64 on another device, a string and a 2-part partitioned variable."""

    def __init__(self, sharded: bool = False, max_to_keep: int | None = 2, write_version: int = 2,
                 save_relative_paths: bool = False):
        self.graph = tf.Graph()
        with self.graph.as_default():
            with tf.device("/cpu:0"):
                self.a = tf.Variable(np.zeros((2, 3), np.float32), name="a")
                self.s = tf.Variable(b"", name="s")
            with tf.device("/cpu:1"):
                self.b = tf.Variable(np.int64(0), name="b")
                self.emb = tf.get_variable("emb", shape=[4, 2], dtype=tf.float64,
                                           initializer=tf.zeros_initializer(),
                                           partitioner=tf.fixed_size_partitioner(2))
            kwargs = dict(sharded=sharded, max_to_keep=max_to_keep, save_relative_paths=save_relative_paths)
            if write_version != 2:
                kwargs["write_version"] = write_version
            self.saver = tf.train.Saver(**kwargs)
            self.init = tf.global_variables_initializer()
            # the sharded model pins a variable to /cpu:1: a session with two CPUs, as TF requires
            self.sess = tf.Session(graph=self.graph, config=tf.ConfigProto(device_count={"CPU": 2}))
            self.sess.run(self.init)

    def set_step(self, step: int) -> None:
        """Loads the values of save ``step`` into the session."""
        values = expected_values(step)
        with self.graph.as_default():
            self.a.load(values["a"], self.sess)
            self.b.load(values["b"], self.sess)
            self.s.load(values["s"], self.sess)
            parts = list(self.emb)
            for index, part in enumerate(parts):
                part.load(values["emb"][2 * index:2 * index + 2], self.sess)

    def save(self, path: str, step: int | None, **kwargs) -> str:
        """Saves (no .meta unless asked) and returns the prefix."""
        kwargs.setdefault("write_meta_graph", False)
        with self.graph.as_default():
            return self.saver.save(self.sess, path, global_step=step, **kwargs)

    def restored_values(self, prefix: str) -> dict[str, object]:
        """Restores ``prefix`` with the Saver and returns key -> value read back from the session."""
        with self.graph.as_default():
            self.sess.run(self.init)
            self.saver.restore(self.sess, prefix)
            a, b, s = self.sess.run([self.a, self.b, self.s])
            emb = np.concatenate(self.sess.run(list(self.emb)))
        return {"a": a, "b": b, "s": s, "emb": emb}
