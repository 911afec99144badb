"""Resource variables (use_resource=True) against TensorFlow: graph structure, snapshot reads, updates, errors,
Saver checkpoints and optimizers."""

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph import errors


def _build(module):
    v = module.Variable([1.0, 2.0], use_resource=True, name="v")
    w = module.get_variable("w", [3, 2], use_resource=True, initializer=module.ones_initializer())
    a = v.assign_add([1.0, 1.0])
    b = v.assign([3.0, 4.0], read_value=False)
    s = module.scatter_add(w, [0, 0], [[1.0, 2.0], [3.0, 4.0]])
    g = module.gather(w, [2, 0])
    return v, w, a, b, s, g


def _nodes(graph_def):
    return [(n.name, n.op, list(n.input)) for n in graph_def.node]


@pytest.mark.tf
def test_graph_structure_matches_tensorflow(tf1):
    _build(tf1)
    with tf.Graph().as_default() as ours:
        v, *_ = _build(tf)
    assert _nodes(ours.as_graph_def()) == _nodes(tf1.get_default_graph().as_graph_def())
    assert type(v).__name__ == "ResourceVariable" and v.dtype == tf.float32 and v.name == "v:0"
    assert str(v.to_proto()) is not None and v.to_proto().is_resource


@pytest.mark.tf
def test_values_and_snapshot_reads_match_tensorflow(tf1):
    def run(module, graph):
        with graph.as_default():
            v, w, a, b, s, g = _build(module)
            before = v.value()
            with module.control_dependencies([before]):
                add = v.assign_add([10.0, 10.0])
            with module.control_dependencies([add.op if hasattr(add, "op") else add]):
                after = module.identity(v.read_value())
            with module.Session() as sess:
                sess.run(module.global_variables_initializer())
                first = sess.run([before, after])
                sess.run(b)
                sess.run(s.op)
                return first + [sess.run(v), sess.run(w), sess.run(g), sess.run(a)]
    expected = run(tf1, tf1.get_default_graph())
    got = run(tf, tf.Graph())
    for e, o in zip(expected, got):
        np.testing.assert_array_equal(o, e)


def test_uninitialized_read_and_update_errors():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], use_resource=True, name="v")
        with tf.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError, match="Could not find variable v. This could mean"):
                sess.run(v.value())
            with pytest.raises(errors.NotFoundError, match=r"Could not find resource: localhost/v"):
                sess.run(v.assign_add([1.0, 1.0]))
            sess.run(v.initializer)
            with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = 5 is not in \[0, 2\)"):
                sess.run(v.sparse_read([5]))
            assert sess.run(v.is_initialized())


@pytest.mark.tf
def test_checkpoint_is_byte_identical_and_restores_both_ways(tf1, tmp_path):
    def build(module):
        v = module.Variable([1.0, 2.0], use_resource=True, name="v")
        w = module.get_variable("w", [2, 3], use_resource=True, initializer=module.ones_initializer())
        r = module.Variable(3.0, name="r")
        return v, w, r, module.train.Saver()

    v1, w1, r1, saver1 = build(tf1)
    expected_nodes = _nodes(tf1.get_default_graph().as_graph_def())
    with tf1.Session() as sess:
        sess.run(tf1.global_variables_initializer())
        sess.run(v1.assign_add([1.0, 1.0]))
        saver1.save(sess, str(tmp_path / "theirs"))
    with tf.Graph().as_default() as graph:
        v, w, r, saver = build(tf)
        assert _nodes(graph.as_graph_def()) == expected_nodes
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v.assign_add([1.0, 1.0]))
            saver.save(sess, str(tmp_path / "ours"))
            saver.restore(sess, str(tmp_path / "theirs"))
            np.testing.assert_array_equal(sess.run(v), [2.0, 3.0])
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / ("ours" + suffix)).read_bytes() == (tmp_path / ("theirs" + suffix)).read_bytes()


@pytest.mark.tf
@pytest.mark.parametrize("optimizer", ["GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
                                       "AdagradOptimizer", "RMSPropOptimizer"])
def test_optimizers_update_resource_variables_as_tensorflow(tf1, optimizer):
    def run(module, graph):
        with graph.as_default():
            w = module.get_variable("w", [4, 3], use_resource=True,
                                    initializer=module.constant_initializer(np.arange(12.0).reshape(4, 3) / 7))
            b = module.Variable([0.5, -0.5, 1.0], use_resource=True, name="b")
            x = module.constant([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0]])
            loss = module.reduce_sum(module.square(module.matmul(x, w) + b))
            args = (0.01, 0.9) if optimizer == "MomentumOptimizer" else (0.05,)
            train = getattr(module.train, optimizer)(*args).minimize(loss)
            types = sorted(op.type for op in graph.get_operations() if op.type.startswith("Resource"))
            with module.Session() as sess:
                sess.run(module.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                return sess.run([w, b]), types
    (expected, expected_types) = run(tf1, tf1.get_default_graph())
    (got, got_types) = run(tf, tf.Graph())
    assert got_types == expected_types
    for e, o in zip(expected, got):
        np.testing.assert_allclose(o, e, rtol=1e-5, atol=1e-6)


def test_enable_resource_variables_switches_the_default():
    with tf.Graph().as_default():
        assert type(tf.Variable(1.0)).__name__ == "Variable"
        tf.enable_resource_variables()
        try:
            assert tf.resource_variables_enabled()
            assert type(tf.Variable(1.0)).__name__ == "ResourceVariable"
            assert type(tf.Variable(1.0, use_resource=False)).__name__ == "Variable"
        finally:
            tf.disable_resource_variables()
        assert type(tf.Variable(1.0)).__name__ == "Variable"
