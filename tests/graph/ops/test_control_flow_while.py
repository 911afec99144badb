"""tf.while_loop: TF1's Enter/Merge/Switch/NextIteration/Exit graph op by op, loop results and errors vs TF."""

from __future__ import annotations

import re

import numpy as np
import pytest

import graph.compat.v1 as tf_ours
from graph.core import graph as graph_lib
from graph.core.graph_keys import GraphKeys
from graph.ops.control_flow_while import WhileContext
from tests.graph import graph_oracle


def _shape_list(tf1, value):
    shape = tf1.TensorShape(value) if not hasattr(value, "as_list") or hasattr(value, "dim") else value
    return None if shape.ndims is None else shape.as_list()


def assert_same_graph_v1(tf1, build):
    """graph_oracle.assert_same_graph_v1 with TensorArray shape attrs compared as lists."""
    ours = graph_lib.Graph()
    with ours.as_default():
        ours_result = build(tf_ours)
    theirs_result = build(tf1)
    theirs = tf1.get_default_graph()

    def normalized(rows):
        return [row[:4] + ({k: _shape_list(tf1, v) if k.startswith("element_shape") else v
                            for k, v in row[4].items()},) + row[5:] for row in rows]
    mine, real = normalized(graph_oracle.describe_ours(ours)), normalized(graph_oracle.describe_tf(theirs))
    for index, (a, b) in enumerate(zip(mine, real)):
        assert a == b, f"op #{index} differs:\n ours: {a}\n   tf: {b}"
    assert len(mine) == len(real), [row[0] for row in mine[len(real):]] + [row[0] for row in real[len(mine):]]
    return (ours, ours_result), (theirs, theirs_result)


def _simple(tf):
    i = tf.constant(0)
    return tf.while_loop(lambda i: tf.less(i, 10), lambda i: tf.add(i, 1), [i])


def _captured(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    step = tf.constant(2.0, name="step")
    return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + step * tf.cast(i, tf.float32)),
                         [tf.constant(0), tf.constant(0.0)], name="acc")


def _nested(tf):
    def outer(i, total):
        _, inner = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [tf.constant(0), tf.constant(0)])
        return i + 1, total + inner
    return tf.while_loop(lambda i, total: i < 5, outer, [tf.constant(0), tf.constant(0)])


def _with_cond(tf):
    return tf.while_loop(lambda i: i < 10, lambda i: tf.cond(i < 5, lambda: i + 1, lambda: i + 2), [tf.constant(0)])


def _structured(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    state = {"a": tf.constant(1.0), "pair": (tf.constant(0), tf.zeros([2]))}
    return tf.while_loop(lambda s: s["pair"][0] < 4,
                         lambda s: {"a": s["a"] * 2.0, "pair": (s["pair"][0] + 1, s["pair"][1] + tf.reduce_sum(x))},
                         [state], maximum_iterations=3)


def _invariant(tf):
    v = tf.constant([1.0])
    return tf.while_loop(lambda v: tf.size(v) < 5, lambda v: tf.concat([v, v[-1:] * 2.0], 0), [v],
                         shape_invariants=[tf.TensorShape([None])])


def _tensor_array(tf):
    ta = tf.TensorArray(tf.float32, size=4, element_shape=[2])
    x = tf.placeholder(tf.float32, [4, 2], name="x")
    inputs = tf.TensorArray(tf.float32, size=4).scatter(tf.range(4), x)

    def body(k, out):
        return k + 1, out.write(k, inputs.read(k) * tf.cast(k, tf.float32))
    _, ta = tf.while_loop(lambda k, out: k < 4, body, [tf.constant(0), ta])
    dyn = tf.TensorArray(tf.int32, size=0, dynamic_size=True, clear_after_read=False)
    _, dyn = tf.while_loop(lambda k, d: k < 3, lambda k, d: (k + 1, d.write(k, k * k)), [tf.constant(0), dyn])
    return [ta.stack(), ta.size(), dyn.stack(), dyn.read(2), dyn.gather([2, 0])]


BUILDS = {"simple": _simple, "captured": _captured, "nested": _nested, "with_cond": _with_cond,
          "structured": _structured, "invariant": _invariant, "tensor_array": _tensor_array}
FEEDS = {"captured": {"n:0": 5}, "structured": {"x:0": [1.0, 2.0]}, "tensor_array": {"x:0": np.arange(8.0).reshape(4, 2)}}


def _assert_same_values(got, expected):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected)
        for key in expected:
            _assert_same_values(got[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            _assert_same_values(a, b)
    else:
        np.testing.assert_array_equal(got, expected)
        assert np.asarray(got).dtype == np.asarray(expected).dtype


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(BUILDS))
def test_while_loop_graph_and_values_match_tensorflow(tf1, case):
    (ours, mine), (theirs, real) = assert_same_graph_v1(tf1, BUILDS[case])
    feed = FEEDS.get(case)
    with tf1.Session() as sess:
        expected = sess.run(real, feed)
    got = tf_ours.Session(graph=ours).run(mine, feed)
    _assert_same_values(got, expected)


@pytest.mark.tf
def test_simple_loop_attrs_and_context_match_tensorflow(tf1):
    (ours, _), (theirs, _) = assert_same_graph_v1(tf1, _simple)
    for name in ("while/Enter", "while/Merge", "while/Switch", "while/Exit", "while/NextIteration"):
        for attr in ("frame_name", "is_constant", "parallel_iterations", "_class"):
            theirs_op, ours_op = theirs.get_operation_by_name(name), ours.get_operation_by_name(name)
            if attr in theirs_op.node_def.attr:
                value = theirs_op.get_attr(attr)
                assert ours_op.get_attr(attr) == value, (name, attr)
            else:
                assert attr not in ours_op.attrs, (name, attr)
    contexts = ours.get_collection(GraphKeys.WHILE_CONTEXT)
    assert len(contexts) == 1 and isinstance(contexts[0], WhileContext)
    assert contexts[0].name == theirs.get_collection("while_context")[0].name == "while/while_context"
    assert [t.name for t in contexts[0].loop_exits] == ["while/Exit:0"]


@pytest.mark.tf
def test_loop_inside_untaken_cond_branch_is_skipped_like_tensorflow(tf1):
    def build(tf):
        p = tf.placeholder(tf.bool, [], name="p")
        return tf.cond(p, lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)]),
                       lambda: tf.constant(-1))
    (ours, mine), (theirs, real) = assert_same_graph_v1(tf1, build)
    for value in (True, False):
        with tf1.Session() as sess:
            expected = sess.run(real, {"p:0": value})
        assert tf_ours.Session(graph=ours).run(mine, {"p:0": value}) == expected


@pytest.mark.tf
@pytest.mark.parametrize("build, error", [
    (lambda tf: tf.while_loop(lambda v: True, lambda v: tf.concat([v, v], 0), [tf.constant([1.0])]), ValueError),
    (lambda tf: tf.while_loop(lambda v: True, lambda v: v, [tf.constant([1.0, 2.0])],
                              shape_invariants=[tf.TensorShape([3])]), ValueError),
    (lambda tf: tf.while_loop(lambda a, b: a < 1, lambda a, b: a + 1, [tf.constant(0), tf.constant(0)]), ValueError),
    (lambda tf: tf.while_loop(lambda a: a < 1, lambda a: a + 1, []), ValueError),
    (lambda tf: tf.while_loop(1, lambda a: a + 1, [tf.constant(0)]), TypeError),
    (lambda tf: tf.while_loop(lambda a: a < 1, lambda a: a + 1, [tf.constant(0)], parallel_iterations=0), TypeError),
    (lambda tf: tf.while_loop(lambda a: a < 1, lambda a: a + 1, [tf.constant(0)], maximum_iterations=[1, 2]),
     ValueError),
])
def test_while_loop_errors_match_tensorflow(tf1, build, error):
    with pytest.raises(error) as theirs:
        build(tf1)
    with graph_lib.Graph().as_default(), pytest.raises(error) as ours:
        build(tf_ours)
    assert str(theirs.value).startswith(str(ours.value))  # TF's nest adds a "More specifically" tail


@pytest.mark.tf
def test_tensor_array_runtime_errors_match_tensorflow(tf1):
    def build(tf):
        ta = tf.TensorArray(tf.float32, size=2)
        return [ta.write(2, 1.0).flow, ta.write(0, 1.0).write(0, 2.0).flow, ta.read(5)]
    ours = graph_lib.Graph()
    with ours.as_default():
        mine = build(tf_ours)
    real = build(tf1)
    for index, fetch in enumerate(real):
        with tf1.Session() as sess, pytest.raises(tf1.errors.InvalidArgumentError) as theirs:
            sess.run(fetch)
        with pytest.raises(tf_ours.errors.InvalidArgumentError) as got:
            tf_ours.Session(graph=ours).run(mine[index])
        # TF numbers the arrays it names in write errors ('TensorArray TensorArray_7: ...') process-wide
        mine_text, real_text = (re.sub(r"TensorArray_\d+:", "TensorArray_N:", text)
                                for text in (got.value.message, theirs.value.message))
        assert mine_text in real_text, (got.value.message, theirs.value.message)


def test_loop_tensors_cannot_be_fetched_or_fed():
    with graph_lib.Graph().as_default():
        out = tf_ours.while_loop(lambda i: i < 3, lambda i: i + 1, [tf_ours.constant(0)])
        inner = out.op.inputs[0].op.inputs[0]  # while/Merge
        with tf_ours.Session() as sess:
            assert sess.run(out) == 3
            with pytest.raises(ValueError, match="not fetchable"):
                sess.run(inner)


@pytest.mark.tf
def test_while_loops_imported_from_a_tensorflow_meta_graph_run(tf1, tmp_path):
    n = tf1.placeholder(tf1.int32, [], name="n")

    def outer(i, acc, ta):
        _, inner = tf1.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + j), [tf1.constant(0), tf1.constant(0)])
        acc = tf1.cond(i < 2, lambda: acc + inner, lambda: acc - inner)
        return i + 1, acc, ta.write(i, tf1.cast(acc, tf1.float32))
    ta = tf1.TensorArray(tf1.float32, size=0, dynamic_size=True)
    result = tf1.while_loop(lambda i, a, t: i < n, outer, [tf1.constant(0), tf1.constant(0), ta])
    fetches = [tf1.identity(result[2].stack(), name="out"), tf1.identity(result[1], name="acc")]
    with tf1.Session() as sess:
        expected = sess.run(fetches, {n: 6})
    tf1.train.export_meta_graph(str(tmp_path / "loop.meta"))
    with graph_lib.Graph().as_default():
        tf_ours.train.import_meta_graph(str(tmp_path / "loop.meta"))
        with tf_ours.Session() as sess:
            _assert_same_values(sess.run(["out:0", "acc:0"], {"n:0": 6}), expected)


@pytest.mark.tf
def test_our_while_loop_exports_a_while_context_tensorflow_imports_and_runs(tf1, tmp_path):
    with graph_lib.Graph().as_default():
        limit = tf_ours.constant(4, name="limit")
        tf_ours.while_loop(lambda i, s: i < limit, lambda i, s: (i + 1, s * 2), [tf_ours.constant(0), tf_ours.constant(1)])
        tf_ours.train.export_meta_graph(str(tmp_path / "ours.meta"))
    tf1.train.import_meta_graph(str(tmp_path / "ours.meta"))
    context = tf1.get_collection("while_context")[0]
    assert context.name == "while/while_context" and [t.name for t in context.loop_exits] == ["while/Exit:0",
                                                                                             "while/Exit_1:0"]
    with tf1.Session() as sess:
        assert sess.run(["while/Exit:0", "while/Exit_1:0"]) == [4, 16]


def _composite_loop_variables(tf):
    values = tf.constant([2.0, 4.0], name="values")
    slices = tf.IndexedSlices(values, tf.constant([0, 3], name="indices"), tf.constant([10], name="dense_shape"))
    sparse = tf.SparseTensor(tf.constant([[0], [3]], dtype=tf.int64), values, tf.constant([10], dtype=tf.int64))

    def body(i, x, s):
        return [i + 1, tf.IndexedSlices(x.values * 2.0, x.indices, x.dense_shape),
                tf.SparseTensor(s.indices, s.values * 3.0, s.dense_shape)]
    _, x, s = tf.while_loop(lambda i, *_: i < 3, body, [tf.constant(0), slices, sparse])
    return values, [x.values, x.indices, s.values]


@pytest.mark.tf
def test_indexed_slices_and_sparse_tensor_loop_variables_match_tensorflow(tf1):
    # Each travels as its component tensors (TF's expand_composites): one Enter/Merge/Switch/Exit each.
    (ours, (our_values, mine)), (theirs, (values, real)) = assert_same_graph_v1(tf1, _composite_loop_variables)
    # the gradient reaches the values through their loop (values only: the gradient graph's dead Shape
    # ops differ, math_grad's business)
    real.append(tf1.gradients(real[0] + real[2], values)[0])
    with ours.as_default():
        mine.append(tf_ours.gradients(mine[0] + mine[2], our_values)[0])
    with tf1.Session(graph=theirs) as sess:
        expected = sess.run(real)
    with tf_ours.Session(graph=ours) as sess:
        for got, want in zip(sess.run(mine), expected):
            np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(expected[3], [35.0, 35.0])
