"""TensorFlow's queue-based input pipeline suite (fourth part: shuffle_batch, shuffle_batch_join, their maybe_*).

Port of tensorflow/python/training/input_test.py (tensorflow/tensorflow at 0304934138cb): ShuffleBatchTest and
ShuffleBatchJoinTest, with the same inputs, seeds, steps and expectations, rewritten against ``harness.tf``.  The
original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.  Checks the
original repeats per test are shared helpers here.
"""

import numpy as np
import pytest

from tests.tf_suites.harness import TestCase, tf


def _single_sparse(zero64, value):
    return tf.SparseTensor(indices=tf.reshape(zero64, [1, 1]), values=tf.stack([tf.cast(value, tf.float32)]),
                           dense_shape=[1])


def _start(case):
    case.evaluate(tf.global_variables_initializer())
    case.evaluate(tf.local_variables_initializer())
    return tf.train.start_queue_runners()


def _end(case, fetch, threads):
    with pytest.raises(tf.errors.OutOfRangeError):
        case.evaluate(fetch)
    for thread in threads:
        thread.join()


def _check_batch(case, results, size):
    assert len(results[0]) == size
    case.assertAllEqual(results[1].indices, np.vstack((np.arange(size), np.zeros(size))).T)
    case.assertAllEqual(results[0], results[1].values)
    case.assertAllEqual(results[1].dense_shape, [size, 1])


def _scrambled(counts, total):
    deltas = [counts[i + 1] - counts[i] for i in range(len(counts) - 1)]
    assert not all(d == deltas[0] for d in deltas)
    assert sorted(counts) == list(range(total))


def _keep_input_run(case, batch_fn, num_threads, enqueue_many, keep_input_vector):
    """The shared keep-input check: only even counters arrive, batch after batch, then OutOfRangeError."""
    with tf.Graph().as_default(), case.cached_session():
        batch_size, num_batches = 5, 4
        counter = tf.Variable(0).count_up_to(num_batches * batch_size * 2)
        sparse_counter = tf.SparseTensor(indices=tf.zeros([1, 1], dtype=tf.int64),
                                         values=tf.stack([tf.cast(counter, tf.float32)]), dense_shape=[1])
        to_batch = [counter, sparse_counter, "string"]
        if enqueue_many:
            to_batch = tf.train.batch(to_batch, 4 if keep_input_vector else 1)
        keep_input = tf.squeeze(tf.equal(0, tf.mod(to_batch[0], 2)))
        batched = batch_fn(to_batch, batch_size, keep_input, num_threads, enqueue_many)
        case.evaluate(tf.initialize_all_variables())
        case.evaluate(tf.initialize_local_variables())
        threads = tf.train.start_queue_runners()
        for _ in range(num_batches):
            results = case.evaluate(batched)
            case.assertAllEqual([0] * batch_size, np.mod(results[0], 2))
            case.assertAllEqual([0] * batch_size, np.mod(results[1].values, 2))
            case.assertAllEqual([b"string"] * batch_size, results[2])
        _end(case, batched, threads)


def _inferred(batch_fn, known, keep_input, per_example=False, **kwargs):
    with tf.Graph().as_default():
        if per_example:
            sparse = tf.SparseTensor(indices=[[0], [0]], values=[1.0, 2.0], dense_shape=[2])
        elif known:
            sparse = tf.SparseTensor(indices=[[0]], values=[1.0], dense_shape=[1])
        else:
            sparse = tf.SparseTensor(indices=tf.placeholder(tf.int64), values=tf.placeholder(tf.float32),
                                     dense_shape=tf.placeholder(tf.int64))
        shape = batch_fn(sparse, keep_input, **kwargs).dense_shape.get_shape()
        return shape.as_list() if known else shape.num_elements()


def _invalid_keep_input(batch_fn):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="`keep_input` cannot be a vector"):
            batch_fn(tf.zeros(5), tf.constant([True, False]), batch_size=1, enqueue_many=False)
        with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
            batch_fn(tf.zeros(5), tf.constant([[True]]), batch_size=1, enqueue_many=True)
        with pytest.raises(ValueError, match="must be known at graph construction"):
            batch_fn(tf.zeros(5), tf.placeholder(tf.bool), batch_size=1, enqueue_many=True)


class _MaybeCases:
    """The maybe_* tests both classes share; `_maybe(tensor, keep_input, **kw)` batches one tensor."""

    def testSingleThreadKeepInput(self):
        self._testKeepInputHelper(1, False)

    def testSingleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(1, True)

    def testMultipleThreadKeepInput(self):
        self._testKeepInputHelper(5, False)

    def testMultipleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(5, True)

    def testInvalidKeepInputVector(self):
        _invalid_keep_input(self._maybe)

    def testMaybeBatchedSparseTensorInferredShape(self):
        assert _inferred(self._maybe, True, True) == [2]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueMany(self):
        assert _inferred(self._maybe, True, True, enqueue_many=True) == [1]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueManyPerExample(self):
        assert _inferred(self._maybe, True, [True, False], per_example=True, enqueue_many=True) == [1]

    def testMaybeBatchedSparseTensorInferredShapeUnknownRank(self):
        assert _inferred(self._maybe, False, True) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankEnqueueMany(self):
        assert _inferred(self._maybe, False, True, enqueue_many=True) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankPerExample(self):
        assert _inferred(self._maybe, False, [True, False], enqueue_many=True) is None


class ShuffleBatchTest(_MaybeCases, TestCase):

    def _maybe(self, tensor, keep_input, batch_size=2, **kwargs):
        return tf.train.maybe_shuffle_batch([tensor], batch_size, 10, 1, keep_input, **kwargs)

    def _shuffled(self, total, seed, num_threads, allow_smaller_final_batch, use_dict=False):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 10, 3
            zero64 = tf.constant(0, dtype=tf.int64)
            counter = tf.Variable(zero64).count_up_to(total)
            sparse_counter = _single_sparse(zero64, counter)
            kwargs = dict(batch_size=batch_size, capacity=32, min_after_dequeue=16, seed=seed,
                          allow_smaller_final_batch=allow_smaller_final_batch)
            if num_threads != 1:
                kwargs["num_threads"] = num_threads
            if use_dict:
                batched = tf.train.shuffle_batch({"c": counter, "s": sparse_counter, "S": "string"}, **kwargs)
                batched = [batched["c"], batched["s"], batched["S"]]
            else:
                batched = tf.train.shuffle_batch([counter, sparse_counter, "string"], **kwargs)
            threads = _start(self)
            all_counts = []
            for _ in range(num_batches):
                results = self.evaluate(batched)
                _check_batch(self, results, batch_size)
                self.assertAllEqual(results[2], [b"string"] * batch_size)
                all_counts.extend(results[0])
            extra = total - num_batches * batch_size
            if extra:
                results = self.evaluate(batched)
                self.assertAllEqual(results[0].shape, [extra])
                self.assertAllEqual(results[1].dense_shape, [extra, 1])
                self.assertAllEqual(results[2], [b"string"] * extra)
                all_counts.extend(results[0])
            _scrambled(all_counts, total)  # scrambled, but every number is there
            _end(self, batched, threads)

    def testOneThread(self):
        self._shuffled(30, 141421, 1, False)

    def testOneThreadDict(self):
        self._shuffled(30, 141421, 1, False, use_dict=True)

    def testOneThreadSmallerBatch(self):
        self._shuffled(35, 141421, 1, True)

    def testManyThreads(self):
        self._shuffled(30, 173205, 4, False)

    def testManyThreadsSmallerBatch(self):
        self._shuffled(35, 173205, 4, True)

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            counter = tf.Variable(tf.constant(0, dtype=tf.int64)).count_up_to(30)
            batched = tf.train.shuffle_batch([counter, "string"], batch_size=10, capacity=32, min_after_dequeue=10,
                                             shared_name="SHARED_NAME_XYZ", name="Q")
            assert batched[0].op.inputs[0].op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"

    def _testKeepInputHelper(self, num_threads, enqueue_many, keep_input_vector=False):
        _keep_input_run(self, lambda t, size, keep, threads, many: tf.train.maybe_shuffle_batch(
            t, size, 10, 1, keep, num_threads=threads, enqueue_many=many), num_threads, enqueue_many, keep_input_vector)

    def testSingleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(1, True, keep_input_vector=True)

    def testMultipleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(5, True, keep_input_vector=True)


class ShuffleBatchJoinTest(_MaybeCases, TestCase):
    batch_size = 5

    def _maybe(self, tensor, keep_input, batch_size=2, **kwargs):
        return tf.train.maybe_shuffle_batch_join([[tensor]], batch_size, 10, 1, keep_input, **kwargs)

    def _two_threads(self, extra_elements, use_dict=False):
        with tf.Graph().as_default(), self.cached_session():
            num_a, num_b = 25 + extra_elements, 35 + extra_elements
            zero64 = tf.constant(0, dtype=tf.int64)
            counter = tf.Variable(zero64).count_up_to(num_a)
            ninety_nine = tf.train.limit_epochs(tf.constant(99, dtype=tf.int64), num_b)
            sparse_counter, sparse_ninety_nine = _single_sparse(zero64, counter), _single_sparse(zero64, ninety_nine)
            kwargs = dict(batch_size=self.batch_size, capacity=32, min_after_dequeue=16, seed=223607)
            if extra_elements:
                kwargs["allow_smaller_final_batch"] = True
            if use_dict:
                batched = tf.train.shuffle_batch_join([{"c": counter, "s": sparse_counter, "S": "a"},
                                                       {"c": ninety_nine, "s": sparse_ninety_nine, "S": "b"}], **kwargs)
                batched = [batched["c"], batched["s"], batched["S"]]
            else:
                batched = tf.train.shuffle_batch_join([[counter, sparse_counter, "a"],
                                                       [ninety_nine, sparse_ninety_nine, "b"]], **kwargs)
            first = None if extra_elements else self.batch_size
            assert len(batched) == 3
            assert batched[0].get_shape().as_list() == [first]
            assert batched[1].indices.get_shape().as_list() == [None, 2]
            assert batched[1].values.get_shape().as_list() == [None]
            assert batched[1].dense_shape.get_shape().as_list() == [2]
            assert batched[2].get_shape().as_list() == [first]
            threads = _start(self)
            all_a, seen_b, saw_both = [], 0, 0
            sizes = [self.batch_size] * ((num_a + num_b) // self.batch_size)
            if extra_elements:
                sizes.append(2 * extra_elements)
            for size in sizes:
                results = self.evaluate(batched)
                _check_batch(self, results, size)
                assert len(results[2]) == size
                which_a = [i for i, s in enumerate(results[2]) if s == b"a"]
                which_b = [i for i, s in enumerate(results[2]) if s == b"b"]
                assert len(which_a) + len(which_b) == size
                saw_both += bool(which_a and which_b)
                all_a.extend(results[0][i] for i in which_a)
                seen_b += len(which_b)
                self.assertAllEqual([99] * len(which_b), [results[0][i] for i in which_b])
            assert saw_both > 1  # some mixing of both threads' examples
            _scrambled(all_a, num_a)
            assert seen_b == num_b
            _end(self, batched, threads)

    def testTwoThreads(self):
        self._two_threads(0)

    def testTwoThreadsDict(self):
        self._two_threads(0, use_dict=True)

    def testTwoThreadsSmallerBatch(self):
        self._two_threads(2)

    def testMismatchedDictKeys(self):
        with tf.Graph().as_default(), pytest.raises(ValueError, match="must have the same keys"):
            tf.train.shuffle_batch_join([{"c": 12, "s": 123, "S": "a"}, {"cool": -12, "s": 99, "S": "b"}],
                                        batch_size=8, capacity=32, min_after_dequeue=16, seed=223607)

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            counter = tf.Variable(tf.constant(0, dtype=tf.int64)).count_up_to(30)
            batched = tf.train.shuffle_batch_join([[counter, "string"]], batch_size=10, capacity=32,
                                                  min_after_dequeue=10, shared_name="SHARED_NAME_XYZ", name="Q")
            assert len(batched) == 2
            assert batched[0].get_shape().as_list() == [10] and batched[1].get_shape().as_list() == [10]
            assert batched[0].op.inputs[0].op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"

    def _testKeepInputHelper(self, num_threads, enqueue_many, keep_input_vector=False):
        _keep_input_run(self, lambda t, size, keep, threads, many: tf.train.maybe_shuffle_batch_join(
            [t] * threads, size, 10, 1, keep, enqueue_many=many), num_threads, enqueue_many, keep_input_vector)

    def testSingleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(1, True, keep_input_vector=True)

    def testMultipleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(5, True, keep_input_vector=True)
