"""Tests for graph/random_ops.py: TF's composite structure and seeds, deterministic per-session streams."""

import numpy as np
import pytest

from graph.core import random_seed
from graph.base import dtypes
from graph.ops import constant_ops as ops
from graph.ops import random_ops
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph


def test_structure_and_distribution(g):
    r = random_ops.random_normal([2000], mean=3.0, stddev=2.0, seed=1)
    names = [op.name for op in g.get_operations()]
    assert names == ["random_normal/shape", "random_normal/mean", "random_normal/stddev",
                     "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal"]
    values = session.Session().run(r)
    assert values.dtype == np.float32 and values.shape == (2000,)
    assert abs(values.mean() - 3.0) < 0.2 and abs(values.std() - 2.0) < 0.2
    t = session.Session().run(random_ops.truncated_normal([5000], stddev=1.0, seed=2))
    assert np.abs(t).max() <= 2.0
    u = session.Session().run(random_ops.random_uniform([1000], 2.0, 3.0, seed=3))
    assert u.min() >= 2.0 and u.max() < 3.0
    i = random_ops.random_uniform([1000], 0, 5, dtype=dtypes.int32, seed=4)
    assert i.op.type == "RandomUniformInt" and i.name == "random_uniform_1:0"
    ints = session.Session().run(i)
    assert ints.dtype == np.int32 and set(ints.tolist()) == {0, 1, 2, 3, 4}
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        random_ops.random_uniform([2], dtype=dtypes.int32)
    shuffled = session.Session().run(random_ops.random_shuffle(np.arange(10), seed=5))
    assert sorted(shuffled.tolist()) == list(range(10))


def test_streams_per_session(g):
    r = random_ops.random_uniform([4], seed=7)
    s1, s2 = session.Session(), session.Session()
    first, second = s1.run(r), s1.run(r)
    assert not np.array_equal(first, second)  # each run draws the next values
    np.testing.assert_array_equal(s2.run(r), first)  # a new session restarts the stream
    np.testing.assert_array_equal(s2.run(r), second)
    a, b = s1.run([r, r])
    np.testing.assert_array_equal(a, b)  # one op runs once per call
    unseeded = random_ops.random_uniform([4])
    assert unseeded.op.get_attr("seed") == 0 and unseeded.op.get_attr("seed2") == 0
    assert not np.array_equal(session.Session().run(unseeded), session.Session().run(unseeded))


def test_seeds_follow_graph_seed(g):
    random_seed.set_random_seed(1)
    r1 = random_ops.random_normal([2])
    r2 = random_ops.random_normal([2], seed=3)
    r3 = random_ops.random_uniform([2])
    seeds = [(op.get_attr("seed"), op.get_attr("seed2")) for op in g.get_operations() if "seed" in op.attrs]
    assert seeds == [(1, 0), (1, 3), (1, 1)]
    del r1, r2, r3


@pytest.mark.tf
def test_random_graph_matches_tensorflow(tf1):
    def build(tf):
        tf.set_random_seed(1)
        tf.random_normal([2, 3])
        tf.truncated_normal([2], seed=3)
        tf.random_uniform([2])
        tf.random_uniform([2], 1.0, 2.0)
        tf.random_uniform([2], 0, 5, dtype=tf.int32)
        tf.random_shuffle([1, 2, 3])
        tf.random_normal([2], name="named", dtype=tf.float64)
    (ours, _), (theirs, _) = assert_same_graph(tf1, build)
    mine = [(op.name, op.get_attr("seed"), op.get_attr("seed2")) for op in ours.get_operations() if "seed" in op.attrs]
    real = [(op.name, op.get_attr("seed"), op.get_attr("seed2")) for op in theirs.get_operations()
            if "seed" in op.node_def.attr]
    assert mine == real


def test_static_shape_conflict_is_not_hidden(g):
    sample = random_ops.random_uniform([2, 3])
    random_ops._set_static_shape(sample, [2, 3])  # consistent: fine
    with pytest.raises(ValueError):  # a real conflict with the inferred shape surfaces
        random_ops._set_static_shape(sample, [4, 3])
    n = ops.placeholder(dtypes.int32, [])
    dynamic = random_ops.random_normal([n, 3])  # a shape holding a tensor: no static value to merge
    assert dynamic.shape.as_list() == [None, 3]
    random_ops._set_static_shape(dynamic, [n, 3])
    random_ops._set_static_shape(dynamic, ops.constant([5, 3]))
    assert dynamic.shape.as_list() == [None, 3]
