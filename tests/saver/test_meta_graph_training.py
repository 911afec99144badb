""".meta round trips of a training graph with real TensorFlow, both ways: import, restore, keep training.

The model is an MLP (64-32-10, ReLU, softmax cross entropy) with an optimizer's train op in the
``train_op`` collection and a global step.  One side builds it, trains three steps, saves (the
``.meta`` beside the checkpoint) and records the losses of five more steps; the other side imports
the ``.meta``, restores, runs the imported train op on the same batch, and must see the same losses
(float32 rounding) going down.
"""

import os

import numpy as np
import pytest

import graph.compat.v1 as tf
from graph.base import kernels
from graph.core import graph as graph_lib
from saver import saver as saver_lib

RNG = np.random.RandomState(0)
X = RNG.rand(50, 64).astype(np.float32)
Y = np.eye(10, dtype=np.float32)[RNG.randint(0, 10, 50)]
W1, W2 = (RNG.randn(64, 32) * 0.1).astype(np.float32), (RNG.randn(32, 10) * 0.1).astype(np.float32)
FEED = {"x:0": X, "y:0": Y}
STEPS_BEFORE, STEPS_AFTER = 3, 5
OPTIMIZERS = {
    "adam": lambda t: t.train.AdamOptimizer(0.01),
    "gradient_descent": lambda t: t.train.GradientDescentOptimizer(0.5),
    "momentum": lambda t: t.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "rmsprop": lambda t: t.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "adagrad": lambda t: t.train.AdagradOptimizer(0.3),
    "adadelta": lambda t: t.train.AdadeltaOptimizer(10.0),
    "ftrl": lambda t: t.train.FtrlOptimizer(0.3, l1_regularization_strength=0.001),
}


def build(t, optimizer: str):
    """The MLP and its train op in t's default graph (t is TensorFlow's or our compat.v1); returns a Saver."""
    x = t.placeholder(t.float32, [None, 64], name="x")
    y = t.placeholder(t.float32, [None, 10], name="y")
    with t.variable_scope("hidden"):
        w1 = t.get_variable("kernel", initializer=W1)
        b1 = t.get_variable("bias", initializer=np.zeros(32, np.float32))
    with t.variable_scope("out"):
        w2 = t.get_variable("kernel", initializer=W2)
        b2 = t.get_variable("bias", initializer=np.zeros(10, np.float32))
    logits = t.matmul(t.nn.relu(t.nn.bias_add(t.matmul(x, w1), b1)), w2) + b2
    loss = t.identity(t.reduce_mean(t.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)), name="loss")
    step = t.train.get_or_create_global_step()
    t.add_to_collection("train_op", OPTIMIZERS[optimizer](t).minimize(loss, global_step=step))
    return t.train.Saver()


def train_save_continue(t, optimizer: str, directory: str):
    """Builds, trains, saves (with .meta); returns (prefix, the next losses, op types in the graph)."""
    saver = build(t, optimizer)
    train_op = t.get_collection("train_op")[0]
    with t.Session() as sess:
        sess.run(t.global_variables_initializer())
        for _ in range(STEPS_BEFORE):
            sess.run(train_op, FEED)
        prefix = saver.save(sess, os.path.join(directory, "mlp"))
        losses = [sess.run([train_op, "loss:0"], FEED)[1] for _ in range(STEPS_AFTER)]
    return prefix, losses, sorted({op.type for op in t.get_default_graph().get_operations()})


def resume(t, graph, saver, prefix: str):
    """Restores into the imported graph and runs its train op: (losses, global step at the end)."""
    with t.Session() as sess:
        saver.restore(sess, prefix)
        assert sess.run("global_step:0") == STEPS_BEFORE
        losses = [sess.run([graph.get_collection("train_op")[0], "loss:0"], FEED)[1] for _ in range(STEPS_AFTER)]
        return losses, sess.run("global_step:0")


def assert_same_training(expected, actual):
    assert all(b < a for a, b in zip(expected, expected[1:])), f"the loss does not go down: {expected}"
    np.testing.assert_allclose(actual, expected, rtol=2e-6)


@pytest.mark.tf
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_tensorflow_imports_our_training_meta_and_keeps_training(tf1, tmp_path, optimizer):
    with graph_lib.Graph().as_default():
        prefix, ours, op_types = train_save_continue(tf, optimizer, str(tmp_path))
    with tf1.Graph().as_default() as graph:
        saver = tf1.train.import_meta_graph(prefix + ".meta")
        assert {op.type for op in graph.get_operations()} == set(op_types)
        theirs, step = resume(tf1, graph, saver, prefix)
    assert_same_training(ours, theirs)
    assert step == STEPS_BEFORE + STEPS_AFTER


@pytest.mark.tf
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_we_import_tensorflow_training_meta_and_keep_training(tf1, tmp_path, optimizer):
    prefix, theirs, op_types = train_save_continue(tf1, optimizer, str(tmp_path))
    with graph_lib.Graph().as_default() as graph:
        saver = saver_lib.import_meta_graph(prefix + ".meta")
        missing = sorted({op.type for op in graph.get_operations() if kernels.lookup(op.type) is None})
        assert missing == [], f"TensorFlow's {optimizer} training graph uses ops we have no kernel for: {missing}"
        assert sorted({op.type for op in graph.get_operations()}) == op_types
        ours, step = resume(tf, graph, saver, prefix)
    assert_same_training(theirs, ours)
    assert step == STEPS_BEFORE + STEPS_AFTER


def _op_types_by_name(t, directory: str) -> dict:
    with (graph_lib.Graph() if t is tf else t.Graph()).as_default() as graph:
        train_save_continue(t, "adam", directory)
        return {op.name: op.type for op in graph.get_operations()}


@pytest.mark.tf
def test_our_adam_training_graph_has_tensorflow_op_names_and_types(tf1, tmp_path):
    """Every op we build for the model, its gradients and Adam's update has TF's name and type."""
    ours, theirs = _op_types_by_name(tf, str(tmp_path / "ours")), _op_types_by_name(tf1, str(tmp_path / "theirs"))
    assert sorted(set(ours) - set(theirs)) == []
    assert {name: kind for name, kind in ours.items() if theirs[name] != kind} == {}


@pytest.mark.tf
def test_our_adam_training_graph_is_tensorflow_op_for_op(tf1, tmp_path):
    ours, theirs = _op_types_by_name(tf, str(tmp_path / "ours")), _op_types_by_name(tf1, str(tmp_path / "theirs"))
    assert sorted(set(theirs) - set(ours)) == []
