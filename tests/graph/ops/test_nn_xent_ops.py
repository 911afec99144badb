"""graph.ops.nn_xent_ops: the cross-entropy graphs op by op, their values and gradients, against TensorFlow."""

import numpy as np
import pytest

from graph import errors
from graph.core import graph as graph_lib
from graph.ops import constant_ops as ops
from graph.ops import nn_xent_ops
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph_v1 as assert_same_graph

RNG = np.random.RandomState(3)
LOGITS = RNG.randn(2, 3, 4).astype(np.float32)
PROBS = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
SPARSE = np.array([[0, 3, 1], [2, 2, 0]], np.int32)

# name -> (logits shape, labels shape, build(nn, logits, labels)); None in a shape is unknown there,
# a shape of None is an unknown rank.
DENSE = {
    "v2_rank2": ([6, 4], [6, 4], lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)),
    "v2_rank3": ([2, 3, 4], [2, 3, 4], lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)),
    "v2_partial": ([None, 3, 4], [None, 3, 4],
                   lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)),
    "v2_unknown_rank": (None, None, lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x)),
    "v2_axis1": ([2, 3, 4], [2, 3, 4],
                 lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x, axis=1)),
    "v2_dim0_named": ([2, 3, 4], [2, 3, 4],
                      lambda nn, x, y: nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=x, dim=0, name="xe")),
    "v1_rank2": ([6, 4], [6, 4], lambda nn, x, y: nn.softmax_cross_entropy_with_logits(labels=y, logits=x)),
    "v1_rank3_dim1": ([2, None, 4], [2, None, 4],
                      lambda nn, x, y: nn.softmax_cross_entropy_with_logits(labels=y, logits=x, dim=1)),
    "v1_unknown_rank": (None, None, lambda nn, x, y: nn.softmax_cross_entropy_with_logits(labels=y, logits=x)),
}
SPARSE_CASES = {
    "rank2": ([6, 4], [6], lambda nn, x, y: nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)),
    "rank2_named": ([6, 4], [6],
                    lambda nn, x, y: nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x, name="xentropy")),
    "rank3_known": ([2, 3, 4], [2, 3], lambda nn, x, y: nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)),
    "rank3_partial": ([2, None, 4], [2, None],
                      lambda nn, x, y: nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)),
    "unknown_rank": (None, None, lambda nn, x, y: nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)),
}


def _values(logits_shape, sparse: bool):
    rank3 = logits_shape is None or len(logits_shape) == 3
    logits = LOGITS if rank3 else LOGITS.reshape(6, 4)
    labels = (SPARSE if rank3 else SPARSE.reshape(6)) if sparse else (PROBS if rank3 else PROBS.reshape(6, 4))
    return logits, labels


def _build_and_run(tf1, case, sparse: bool):
    logits_shape, labels_shape, call = case
    labels_dtype = "int32" if sparse else "float32"

    def build(tf):
        x = tf.placeholder(tf.float32, logits_shape, name="logits")
        y = tf.placeholder(getattr(tf, labels_dtype), labels_shape, name="labels")
        loss = call(tf.nn, x, y)
        return x, y, loss, tf.gradients(loss, [x])[0]

    (ours, (x, y, loss, grad)), (theirs, (tx, ty, tloss, tgrad)) = assert_same_graph(tf1, build)
    logits, labels = _values(logits_shape, sparse)
    mine = session.Session(graph=ours).run([loss, grad], {x: logits, y: labels})
    with tf1.Session(graph=theirs) as sess:
        real = sess.run([tloss, tgrad], {tx: logits, ty: labels})
    for a, b in zip(mine, real):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(DENSE))
def test_dense_graph_values_and_gradient_match_tensorflow(tf1, name):
    _build_and_run(tf1, DENSE[name], sparse=False)


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(SPARSE_CASES))
def test_sparse_graph_values_and_gradient_match_tensorflow(tf1, name):
    _build_and_run(tf1, SPARSE_CASES[name], sparse=True)


@pytest.mark.tf
def test_float16_logits_are_computed_in_float32_as_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float16, [6, 4], name="logits")
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.placeholder(tf.float16, [6, 4]), logits=x)
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.int64, [6]), logits=x)
    assert_same_graph(tf1, build)


@pytest.mark.tf
def test_labels_of_another_dtype_are_cast_as_tensorflow(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [6, 4], name="logits")
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=PROBS.reshape(6, 4).astype(np.float64), logits=x)
    assert_same_graph(tf1, build)


def test_sparse_shape_mismatch_fails_at_run_time_in_the_assert(g):
    x = ops.placeholder("float32", [2, None, 4])
    y = ops.placeholder("int32", [2, None])
    loss = nn_xent_ops.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold element-wise"):
        session.Session(graph=g).run(loss, {x: LOGITS, y: SPARSE[:, :2]})


def test_kernels_take_rank_2_only(g):
    op = g.create_op("SoftmaxCrossEntropyWithLogits", [ops.constant(LOGITS), ops.constant(PROBS)],
                     attrs={"T": LOGITS.dtype})
    with pytest.raises(errors.InvalidArgumentError, match=r"logits must be 2-D.*\[2,3,4\]"):
        session.Session(graph=g).run(op.outputs[0])
    assert graph_lib.get_default_graph() is g
