"""Tests for graph/ops/control_flow_case.py: tf.case's graph op by op, its values and its errors against TF."""

import pytest

import graph.compat.v1 as ours_tf
from graph import errors
from graph.runtime import session
from tests.graph.graph_oracle import assert_same_graph_v1

XS = [-3.0, 0.0, 0.5, 2.0, 7.0]


def _pairs(tf, x):
    """Three predicates on the scalar placeholder ``x``; for x in (1, 5) the last two both hold."""
    return [(tf.less(x, 0.0), lambda: x * 2.0), (tf.greater(x, 1.0), lambda: x + 10.0),
            (tf.less(x, 5.0), lambda: x - 1.0)]


CASES = {
    "default": lambda tf, x: tf.case(_pairs(tf, x), default=lambda: tf.constant(-1.0)),
    "default_exclusive": lambda tf, x: tf.case(_pairs(tf, x)[:2], default=lambda: x, exclusive=True),
    "no_default": lambda tf, x: tf.case(_pairs(tf, x)[:2], name="pick"),
    "dict": lambda tf, x: tf.case({tf.less(x, 0.0, name="b_neg"): lambda: -x,
                                   tf.greater(x, 1.0, name="a_big"): lambda: x * x}, default=lambda: x),
}


def _run(sess, result, x, values, op_error) -> list:
    """``result`` for each value of ``x``, or the class name of the ``op_error`` it raises."""
    out = []
    for value in values:
        try:
            out.append(float(sess.run(result, {x: value})))
        except op_error as error:
            out.append(type(error).__name__)
    return out


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_case_graph_and_values_match_tensorflow(tf1, name):
    def build(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        return x, CASES[name](tf, x)

    (ours, (our_x, mine)), (theirs, (their_x, real)) = assert_same_graph_v1(tf1, build)
    with tf1.Session(graph=theirs) as sess:
        expected = _run(sess, real, their_x, XS, tf1.errors.OpError)
    got = _run(session.Session(graph=ours), mine, our_x, XS, errors.OpError)
    assert got == expected
    if name == "no_default":  # x in [0, 1] satisfies no predicate: the default's Assert fails
        assert "InvalidArgumentError" in got


@pytest.mark.tf
def test_exclusive_case_fails_as_tensorflow_when_two_predicates_hold(tf1):
    def build(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        return x, tf.case(_pairs(tf, x), default=lambda: x, exclusive=True)

    (ours, (our_x, mine)), (theirs, (their_x, real)) = assert_same_graph_v1(tf1, build)
    with tf1.Session(graph=theirs) as sess, pytest.raises(tf1.errors.InvalidArgumentError) as theirs_error:
        sess.run(real, {their_x: 2.0})
    with pytest.raises(errors.InvalidArgumentError) as ours_error:
        session.Session(graph=ours).run(mine, {our_x: 2.0})
    assert ours_error.value.message.startswith("assertion failed: [Input error: exclusive=True: more than 1")
    assert ours_error.value.message in theirs_error.value.message  # TF adds the node's traceback around it


@pytest.mark.tf
@pytest.mark.parametrize("pairs,message", [
    (lambda tf, x: "not pairs", "'pred_fn_pairs' must be a list, tuple, or dict"),
    (lambda tf, x: [(tf.less(x, 0.0),)], "Each entry in 'pred_fn_pairs' must be a 2-tuple"),
    (lambda tf, x: [(True, lambda: x)], "pred must be a Tensor"),
    (lambda tf, x: [(x, lambda: x)], "pred must be Tensor of type bool"),
    (lambda tf, x: [(tf.less(x, 0.0), x)], "must be callable"),
], ids=["not_a_sequence", "not_a_pair", "python_bool", "float_pred", "not_callable"])
def test_bad_pairs_raise_type_error_as_tensorflow(tf1, pairs, message):
    for tf in (tf1, ours_tf):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [], name="x")
            with pytest.raises(TypeError, match=message):
                tf.case(pairs(tf, x))
