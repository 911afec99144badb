"""Input producers and batchers (graph/train/input.py) with QueueRunners and a Coordinator, against TensorFlow."""

import re

import numpy as np
import pytest

import graph.compat.v1 as ours


def _drain(tf, sess, fetch, limit=100):
    out = []
    try:
        for _ in range(limit):
            out.append(sess.run(fetch))
    except tf.errors.OutOfRangeError as error:
        out.append(("OutOfRangeError", re.sub(r"'_\d+_", "'_N_", error.message.splitlines()[-1]
                                              if "[[" not in error.message else
                                              [m for m in error.message.splitlines() if "insufficient" in m][0])))
    return out


def _program(tf):
    tf.set_random_seed(1)
    names = tf.train.string_input_producer(["a", "b", "c"], num_epochs=2, shuffle=True)
    x, y = tf.train.slice_input_producer([tf.constant([[1, 2], [3, 4], [5, 6]]), tf.constant([7, 8, 9])],
                                         num_epochs=1, shuffle=False)
    batched = tf.train.batch([x, y], 2, allow_smaller_final_batch=True)
    ranged = tf.train.range_input_producer(4, num_epochs=1, shuffle=False, capacity=8)
    shuffled = tf.train.shuffle_batch([tf.train.limit_epochs(tf.range(10), 1)], 3, capacity=20, min_after_dequeue=5,
                                      enqueue_many=True, seed=4, allow_smaller_final_batch=True)
    padded = tf.train.batch({"v": tf.placeholder_with_default(tf.train.limit_epochs(tf.constant([1, 2, 3]), 2), [None])}, 2,
                            dynamic_pad=True, shapes=None)
    joined = tf.train.batch_join([[tf.constant(1)], [tf.constant(2)]], 4)
    graph_ops = [(op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs])
                 for op in tf.get_default_graph().get_operations()]
    collections = ([qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)],
                   [v.op.name for v in tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES)],
                   [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)])
    results = []
    with tf.Session() as sess:
        sess.run([tf.local_variables_initializer(), tf.global_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        results.append(_drain(tf, sess, names.dequeue()))
        results.append(_drain(tf, sess, batched))
        results.append(_drain(tf, sess, ranged.dequeue()))
        results.append(_drain(tf, sess, shuffled))
        results.append(_drain(tf, sess, padded, limit=2))
        results.append(set(sess.run(joined).tolist()) <= {1, 2})  # which thread fills the batch is timing
        coord.request_stop()
        coord.join(threads)
    return graph_ops, collections, results


def _equal(a, b):
    if isinstance(b, (list, tuple)) and not isinstance(b, np.ndarray):
        assert type(a) in (list, tuple) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _equal(x, y)
    elif isinstance(b, dict):
        assert sorted(a) == sorted(b)
        for key in b:
            _equal(a[key], b[key])
    else:
        np.testing.assert_array_equal(a, b)


@pytest.mark.tf
def test_producers_and_batchers_match_tensorflow(tf1):
    expected = _program(tf1)
    with ours.Graph().as_default():
        actual = _program(ours)
    assert actual[0] == expected[0]
    assert actual[1] == expected[1]
    _equal(actual[2], expected[2])


def test_num_epochs_needs_local_variables_initialized():
    with ours.Graph().as_default():
        queue = ours.train.string_input_producer(["a"], num_epochs=1)
        with ours.Session() as sess:
            coord = ours.train.Coordinator()
            threads = ours.train.start_queue_runners(sess, coord)
            with pytest.raises(ours.errors.FailedPreconditionError, match="epochs"):
                coord.join(threads, stop_grace_period_secs=5)
        del queue


def test_batch_with_several_threads_delivers_every_example_once():
    with ours.Graph().as_default():
        (value,) = ours.train.slice_input_producer([ours.range(50)], num_epochs=1, shuffle=False)
        batch = ours.train.batch([value], 7, num_threads=4, allow_smaller_final_batch=True)
        with ours.Session() as sess:
            sess.run(ours.local_variables_initializer())
            coord = ours.train.Coordinator()
            threads = ours.train.start_queue_runners(sess, coord)
            seen = []
            with pytest.raises(ours.errors.OutOfRangeError):
                while True:
                    seen.extend(sess.run(batch).tolist())
            coord.request_stop()
            coord.join(threads)
    assert sorted(seen) == list(range(50))


def test_builder_errors():
    with ours.Graph().as_default():
        with pytest.raises(ValueError, match="requires a non-null input tensor"):
            ours.train.string_input_producer([])
        with pytest.raises(ValueError, match="num_epochs must be > 0"):
            ours.train.limit_epochs(ours.constant(1), 0)
        with pytest.raises(ValueError, match="capacity 5 must be bigger than min_after_dequeue 5"):
            ours.train.shuffle_batch([ours.constant(1)], 2, capacity=5, min_after_dequeue=5)
        with pytest.raises(ValueError, match="Either `input_tensor` must have a fully defined shape"):
            ours.train.input_producer(ours.placeholder(ours.float32, [None, None]))
