"""TensorArray (and gradient stack) state is per run: concurrent Session.run calls never share an array, and
finished runs leave nothing in the session."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import graph.compat.v1 as tf_ours


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.map_fn(lambda row: tf.reduce_sum(row) * row, x)  # a TensorArray in, one out, a while loop
    ta = tf.TensorArray(tf.float32, size=tf.shape(x)[0], tensor_array_name="rows").unstack(x)
    gathered = ta.gather(tf.range(tf.shape(x)[0] - 1, -1, -1))
    grad = tf.gradients(tf.reduce_sum(y * y), x)[0]  # the gradient loop pops stacks the forward loop pushed
    return x, [y, gathered, grad]


def _feeds():
    return [np.arange(3 * rows, dtype=np.float32).reshape(rows, 3) / (rows + 1.0) for rows in (2, 5, 7, 11)]


@pytest.mark.tf
def test_concurrent_runs_with_tensor_arrays_give_tensorflows_values(tf1):
    x, fetches = _build(tf1)
    with tf1.Session() as sess:
        expected = [sess.run(fetches, {x: value}) for value in _feeds()]
    graph = tf_ours.Graph()
    with graph.as_default():
        x, fetches = _build(tf_ours)
    sess = tf_ours.Session(graph=graph)
    barrier = threading.Barrier(len(expected))
    failures: list = []

    def work(index: int) -> None:
        barrier.wait()  # the runs start together and overlap
        try:
            for _ in range(15):
                got = sess.run(fetches, {x: _feeds()[index]})
                for mine, real in zip(got, expected[index]):
                    np.testing.assert_allclose(mine, real, rtol=1e-5)
        except Exception as error:  # noqa: BLE001 (reported by the main thread)
            failures.append((index, error))

    threads = [threading.Thread(target=work, args=(index,)) for index in range(len(expected))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures
    # every array and stack belonged to its run: none is left in the session's kernel state
    assert not [key for key, value in sess._context.op_state.items()
                if isinstance(value, list) or "TensorArray" in str(key) or "Stack" in str(key)]


def test_write_errors_name_each_array_by_a_distinct_number():
    graph = tf_ours.Graph()
    with graph.as_default():
        ta = tf_ours.TensorArray(tf_ours.float32, size=1, tensor_array_name="foo")
        flow = ta.write(0, 1.0).write(0, 2.0).flow
    sess = tf_ours.Session(graph=graph)
    names = set()
    for _ in range(2):
        with pytest.raises(tf_ours.errors.InvalidArgumentError, match=r"TensorArray foo_\d+: Could not write") as e:
            sess.run(flow)
        names.add(str(e.value).split(":")[0])
    assert len(names) == 2
