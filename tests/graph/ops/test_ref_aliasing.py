"""TF1 ref-variable aliasing: reads alias the variable's buffer, Assign/Scatter*/ScatterNd* update it in place.

Each idiom is built and run on both backends; the values must be TensorFlow's.
"""

import numpy as np
import pytest

import graph.compat.v1 as ours


def _after(tf, update):
    """``tf.identity(v)`` under a control dependency on ``update(v, tf)``, with ``v.value()`` taken before."""
    v = tf.Variable([1.0, 2.0, 3.0])
    early = v.value()
    with tf.control_dependencies([early]):
        op = update(v, tf)
    with tf.control_dependencies([op]):
        return [tf.identity(v), tf.identity(early), op]


IDIOMS = {
    "assign_add_identity": lambda tf: _after(tf, lambda v, tf: v.assign_add([1.0, 1.0, 1.0])),
    "assign_identity": lambda tf: _after(tf, lambda v, tf: v.assign([7.0, 8.0, 9.0])),
    "assign_sub_identity": lambda tf: _after(tf, lambda v, tf: tf.assign_sub(v, [1.0, 1.0, 1.0])),
    "scatter_update": lambda tf: _after(tf, lambda v, tf: tf.scatter_update(v, [1], [9.0])),
    "scatter_add": lambda tf: _after(tf, lambda v, tf: tf.scatter_add(v, [0, 0], [5.0, 6.0])),
    "scatter_sub": lambda tf: _after(tf, lambda v, tf: tf.scatter_sub(v, [2], [1.0])),
    "scatter_mul": lambda tf: _after(tf, lambda v, tf: tf.scatter_mul(v, [0, 2], [4.0, 0.5])),
    "scatter_div": lambda tf: _after(tf, lambda v, tf: tf.scatter_div(v, [1, 1], [2.0, 4.0])),
    "scatter_min": lambda tf: _after(tf, lambda v, tf: tf.scatter_min(v, [0, 2], [-1.0, 5.0])),
    "scatter_max": lambda tf: _after(tf, lambda v, tf: tf.scatter_max(v, [0, 2], [-1.0, 5.0])),
    "scatter_nd_update": lambda tf: _after(tf, lambda v, tf: tf.scatter_nd_update(v, [[2], [0]], [5.0, 6.0])),
    "scatter_nd_add": lambda tf: _after(tf, lambda v, tf: tf.scatter_nd_add(v, [[1], [1]], [5.0, 6.0])),
    "scatter_nd_sub": lambda tf: _after(tf, lambda v, tf: tf.scatter_nd_sub(v, [[0]], [3.0])),
    # a new element count with validate_shape=False: a new buffer, the earlier read keeps the old one
    "assign_new_shape": lambda tf: _after(tf, lambda v, tf: tf.assign(v, [1.0, 2.0], validate_shape=False)),
    # the same element count, a new shape: TF reshapes the buffer in place
    "assign_reshape": lambda tf: _after(tf, lambda v, tf: tf.assign(v, [[4.0, 5.0, 6.0]], validate_shape=False)),
}


def _read_value_vs_value(tf):
    v = tf.Variable(10.0)
    with tf.control_dependencies([v.assign(5.0)]):
        return [v.read_value(), v.value(), v + 0.0, tf.identity(v)]


def _chained_assigns(tf):
    v = tf.Variable(1.0)
    first = v.assign(2.0)
    with tf.control_dependencies([first]):
        doubled = v * 2.0
    with tf.control_dependencies([doubled]):
        second = v.assign_add(10.0)
    with tf.control_dependencies([second]):
        return [doubled, tf.identity(v), first, second]


def _integer_scatter_div(tf):
    v = tf.Variable([7, -7, 9, 1])
    return tf.scatter_div(v, [0, 1, 0, 3], [2, 2, 2, 1])


def _nd_matrix(tf):
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    row = tf.scatter_nd_add(v, [[1], [1]], [[1.0] * 4, [2.0] * 4])
    with tf.control_dependencies([row]):
        return [tf.scatter_nd_update(v, [[0, 3], [2, 0]], [-1.0, -2.0]), v.read_value()]


CASES = dict(IDIOMS, read_value_vs_value=_read_value_vs_value, chained_assigns=_chained_assigns,
             integer_scatter_div=_integer_scatter_div, nd_matrix=_nd_matrix)


def _run(tf, build):
    with tf.Graph().as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(fetches)


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(CASES))
def test_idiom_values_match_tensorflow(tf_module, name):
    expected = _run(tf_module, CASES[name])
    actual = _run(ours, CASES[name])
    actual, expected = (values if isinstance(values, list) else [values] for values in (actual, expected))
    assert len(actual) == len(expected)
    for mine, theirs in zip(actual, expected):
        np.testing.assert_array_equal(mine, theirs)
        assert np.asarray(mine).dtype == np.asarray(theirs).dtype


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


@pytest.mark.tf
def test_scatter_nd_graph_matches_tensorflow(tf_module):
    def build(tf):
        v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
        ops = [tf.scatter_nd_update(v, [[0]], [[1.0, 2.0]]), tf.scatter_nd_add(v, [[1, 1]], [3.0], name="add"),
               tf.scatter_nd_sub(v, [[2]], [[1.0, 1.0]], use_locking=True), tf.scatter_mul(v, [0], [[2.0, 2.0]])]
        return [(o.name, o.op.type, [t.name for t in o.op.inputs], o.op.get_attr("use_locking"),
                 o.op.colocation_groups(), _text(o.op.get_attr("bad_indices_policy")) if "Nd" in o.op.type else None)
                for o in ops]
    with tf_module.Graph().as_default():
        expected = build(tf_module)
    with ours.Graph().as_default():
        assert build(ours) == expected


def test_fetched_values_are_copies():
    with ours.Graph().as_default():
        v = ours.Variable([1.0, 2.0])
        read = ours.identity(v)
        with ours.Session() as sess:
            sess.run(v.initializer)
            fetched = sess.run(read)
            sess.run(v.assign([5.0, 6.0]))
            np.testing.assert_array_equal(fetched, [1.0, 2.0])  # a fetch never aliases the variable
            fetched[0] = 100.0
            np.testing.assert_array_equal(sess.run(v), [5.0, 6.0])


def test_failed_scatter_nd_leaves_the_variable_unchanged():
    with ours.Graph().as_default():
        v = ours.Variable(np.zeros((3, 2), np.float32))
        indices = ours.placeholder(ours.int32)
        update = ours.scatter_nd_add(v, indices, [[1.0, 1.0], [2.0, 2.0]])
        with ours.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(ours.errors.InvalidArgumentError,
                               match=r"^indices\[1\] = \[7\] does not index into shape \[3,2\]"):
                sess.run(update, {indices: [[0], [7]]})
            np.testing.assert_array_equal(sess.run(v), np.zeros((3, 2)))
        with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[3,2\]\] = \[2\] must match "
                                             r"dimensions \[1,2\) of updates\[shape=\[1,3\]\] = \[3\]"):
            ours.scatter_nd_update(v, [[0]], [[1.0, 1.0, 1.0]])


@pytest.mark.tf
def test_scatter_nd_name_is_the_bad_indices_policy_as_tensorflow(tf_module):
    def build(tf):
        v = tf.Variable(np.zeros((3, 2), np.float32), name="v")
        ignored = tf.scatter_nd_add(v, [[7], [1]], [[1.0, 1.0], [2.0, 2.0]], name="IGNORE")
        unknown = tf.scatter_nd_sub(v, [[0]], [[1.0, 1.0]], name="nm")
        with tf.Session() as sess:
            sess.run(v.initializer)
            values = [sess.run(ignored)]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown bad indices handling attribute: nm"):
                sess.run(unknown)
        return [ignored.op.name, unknown.op.name] + values
    with tf_module.Graph().as_default():
        expected = build(tf_module)
    with ours.Graph().as_default():
        actual = build(ours)
    assert actual[:2] == expected[:2]
    np.testing.assert_array_equal(actual[2], expected[2])
