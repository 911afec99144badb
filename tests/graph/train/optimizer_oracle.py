"""Shared checks of the optimizers against real TensorFlow: graph, variables, training values, checkpoints.

One small model serves every optimizer: ``layer1/weights`` (3x2, made by get_variable) and ``b``
(2,), with the quadratic loss 0.5 * |w - tw|^2 + 0.5 * |b - tb|^2, whose gradients (w - tw, b - tb)
are built by hand, so the optimizer alone is under test.  The sparse model hands ``layer1/weights``
an IndexedSlices gradient at rows [2, 0, 2] (a repeated row: the optimizers deduplicate).  The
same builder runs with ``graph.compat.v1`` and with ``tensorflow.compat.v1``.
"""

from __future__ import annotations

import numpy as np
import pytest

import graph.compat.v1 as ours
from graph.core.indexed_slices import IndexedSlices
from saver import Saver

W0 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
TW = np.array([[1.0, 0.0], [-1.0, 2.0], [0.5, 0.5]], np.float32)
TB = np.array([0.3, 0.7], np.float32)
ROWS = [2, 0, 2]
STEPS = 5


def build(tf, make_optimizer, sparse: bool = False, indexed_slices=None) -> dict:
    """The model and its train op in the default graph; ``make_optimizer(tf, global_step)`` gives the optimizer."""
    with tf.variable_scope("layer1"):
        w = tf.get_variable("weights", initializer=W0)
    b = tf.Variable(B0, name="b")
    step = tf.train.get_or_create_global_step()
    tw, tb = tf.constant(TW, name="tw"), tf.constant(TB, name="tb")
    loss = 0.5 * tf.reduce_sum(tf.square(w - tw)) + 0.5 * tf.reduce_sum(tf.square(b - tb))
    if sparse:
        rows = tf.constant(ROWS, name="rows")
        grad_w = (indexed_slices or tf.IndexedSlices)(tf.gather(w, rows) - tf.gather(tw, rows), rows,
                                                      tf.constant([3, 2], name="dense_shape"))
    else:
        grad_w = tf.subtract(w, tw, name="grad_w")
    grad_b = tf.subtract(b, tb, name="grad_b")
    optimizer = make_optimizer(tf, step)
    train = optimizer.apply_gradients([(grad_w, w), (grad_b, b)], global_step=step)
    return {"w": w, "b": b, "step": step, "loss": loss, "train": train, "optimizer": optimizer}


def build_ours(make_optimizer, sparse: bool = False):
    """(graph, model) built with graph.compat.v1."""
    graph = ours.Graph()
    with graph.as_default():
        model = build(ours, make_optimizer, sparse, indexed_slices=IndexedSlices)
    return graph, model


def op_rows(graph, class_of) -> list:
    """(name, type, inputs, control inputs, colocation, use_* attrs) of every op."""
    rows = []
    for op in graph.get_operations():
        flags = {}
        for key in ("use_locking", "use_nesterov", "update_slots", "multiply_linear_by_lr", "T", "Tindices"):
            try:
                value = op.get_attr(key)
            except ValueError:
                continue
            flags[key] = getattr(value, "name", value)
        rows.append((op.name, op.type, [t.name for t in op.inputs], sorted(c.name for c in op.control_inputs),
                     class_of(op), flags))
    return rows


def tf_class(op) -> list:
    """The colocation list (``_class`` attr) of a TensorFlow op."""
    return [c.decode() for c in op.node_def.attr["_class"].list.s] if "_class" in op.node_def.attr else []


def our_class(op) -> list:
    """The colocation list (``_class`` attr) of one of our ops, as str."""
    return [c.decode() if isinstance(c, bytes) else c for c in op.get_attr("_class")] if "_class" in op.attrs else []


def variable_rows(variables) -> list:
    """(name, shape, base dtype) of each variable."""
    return [(v.name, v.shape.as_list(), v.dtype.base_dtype.name) for v in variables]


def train(sess, model, steps: int) -> list:
    """Runs ``steps`` updates; the loss after each."""
    losses = []
    for _ in range(steps):
        sess.run(model["train"])
        losses.append(float(sess.run(model["loss"])))
    return losses


def values(sess, variables) -> dict:
    """{variable name: value in ``sess``}."""
    return {v.name: sess.run(v) for v in variables}


def assert_same_values(mine: dict, theirs: dict) -> None:
    """The same variable names, with values equal to float32 precision."""
    assert sorted(mine) == sorted(theirs)
    for name in theirs:
        np.testing.assert_allclose(mine[name], theirs[name], rtol=1e-5, atol=1e-7, err_msg=name)


def check_against_tf(tf1, make_optimizer, sparse: bool = False) -> None:
    """Same ops (names, types, inputs, colocation, attrs), same variables, same values after STEPS steps."""
    theirs = build(tf1, make_optimizer, sparse)
    graph, mine = build_ours(make_optimizer, sparse)
    tf_graph = tf1.get_default_graph()
    expected, actual = op_rows(tf_graph, tf_class), op_rows(graph, our_class)
    for index, (a, b) in enumerate(zip(actual, expected)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(actual) == len(expected), ([r[0] for r in actual[len(expected):]],
                                          [r[0] for r in expected[len(actual):]])
    with graph.as_default():
        our_variables = ours.global_variables()
        assert [v.name for v in mine["optimizer"].variables()] == [v.name for v in theirs["optimizer"].variables()]
        assert mine["optimizer"].get_slot_names() == theirs["optimizer"].get_slot_names()
        assert graph.get_collection("train_op") == [mine["train"]]
    assert variable_rows(our_variables) == variable_rows(tf1.global_variables())
    with tf1.Session(graph=tf_graph) as tf_sess, ours.Session(graph=graph) as sess:
        tf_sess.run(tf1.global_variables_initializer())
        with graph.as_default():
            sess.run(ours.global_variables_initializer())
        tf_losses, our_losses = train(tf_sess, theirs, STEPS), train(sess, mine, STEPS)
        np.testing.assert_allclose(our_losses, tf_losses, rtol=1e-5)
        assert_same_values(values(sess, our_variables), values(tf_sess, tf1.global_variables()))
        assert sess.run(mine["step"]) == STEPS


def _continue_from(restore, session, model, variables) -> tuple[list, dict, int]:
    """Restores into a fresh (uninitialized) ``session``, trains 3 more steps: (losses, values, global step)."""
    restore(session)
    losses = train(session, model, 3)
    return losses, values(session, variables), int(session.run(model["step"]))


def check_checkpoints(tf1, make_optimizer, tmp_path, sparse: bool = False) -> None:
    """Both Savers write the same keys; a checkpoint TF wrote after 3 steps continues in our graph exactly as TF
    continues it, and one we wrote continues in TF as it does with us (fresh sessions: restore alone must fill
    every variable, slots and accumulators included)."""
    theirs = build(tf1, make_optimizer, sparse)
    tf_graph = tf1.get_default_graph()
    tf_variables = tf1.global_variables()
    graph, mine = build_ours(make_optimizer, sparse)
    with graph.as_default():
        our_saver = Saver()
        our_variables = ours.global_variables()
        our_init = ours.global_variables_initializer()
    tf_saver = tf1.train.Saver()
    with tf1.Session(graph=tf_graph) as tf_sess, ours.Session(graph=graph) as sess:
        tf_sess.run(tf1.global_variables_initializer())
        sess.run(our_init)
        train(tf_sess, theirs, 3)
        train(sess, mine, 3)
        tf_path = tf_saver.save(tf_sess, str(tmp_path / "tf" / "model"), global_step=theirs["step"])
        our_path = our_saver.save(sess, str(tmp_path / "ours" / "model"), global_step=mine["step"])
        assert tf1.train.list_variables(our_path) == tf1.train.list_variables(tf_path)
        with ours.Session(graph=graph) as fresh:
            from_tf = _continue_from(lambda s: our_saver.restore(s, tf_path), fresh, mine, our_variables)
        with tf1.Session(graph=tf_graph) as fresh:
            from_ours = _continue_from(lambda s: tf_saver.restore(s, our_path), fresh, theirs, tf_variables)
        tf_continued = (train(tf_sess, theirs, 3), values(tf_sess, tf_variables), int(tf_sess.run(theirs["step"])))
        our_continued = (train(sess, mine, 3), values(sess, our_variables), int(sess.run(mine["step"])))
    for (losses, state, step), (expected_losses, expected_state, expected_step) in (
            (from_tf, tf_continued), (from_ours, our_continued)):
        np.testing.assert_allclose(losses, expected_losses, rtol=1e-5)
        assert_same_values(state, expected_state)
        assert step == expected_step == 6


def oracle_tests(cases: list, checkpoint_cases: list | None = None) -> tuple:
    """The two tests of an optimizer's module: ``check_against_tf`` on every case, dense and sparse, and
    ``check_checkpoints`` on ``checkpoint_cases`` (the last case by default).

    A test module binds them to ``test_*`` names: ``test_matches_tensorflow, test_checkpoints_cross_restore =
    oracle_tests(CASES)``; each call makes new functions, so the marks of one module never reach another.
    """
    sparse_and_dense = pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])

    @pytest.mark.tf
    @pytest.mark.parametrize("make", cases)
    @sparse_and_dense
    def test_matches_tensorflow(tf1, make, sparse):
        check_against_tf(tf1, make, sparse)

    @pytest.mark.tf
    @pytest.mark.parametrize("make", cases[-1:] if checkpoint_cases is None else checkpoint_cases)
    @sparse_and_dense
    def test_checkpoints_cross_restore(tf1, tmp_path, make, sparse):
        check_checkpoints(tf1, make, tmp_path, sparse)

    return test_matches_tensorflow, test_checkpoints_cross_restore
