"""TensorFlow's queue-based input pipeline suite (second part: tf.train.batch and maybe_batch), both backends.

Port of tensorflow/python/training/input_test.py (tensorflow/tensorflow at 0304934138cb): BatchTest, with the
same inputs, steps and expectations, rewritten against ``harness.tf``.  The original is Copyright 2015 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.  ``assertProtoEquals`` on the queue's
``shared_name`` attr reads ``node_def.attr["shared_name"].s``.
"""

import numpy as np
import pytest

from tests.tf_suites.harness import TestCase, tf


def _initialize(case):
    case.evaluate(tf.global_variables_initializer())
    case.evaluate(tf.local_variables_initializer())


def _counter(limit):
    zero64 = tf.constant(0, dtype=tf.int64)
    return zero64, tf.Variable(zero64).count_up_to(limit)


def _pair_sparse(zero64, counter):
    """A SparseTensor [counter, -counter] of shape [2]."""
    return tf.SparseTensor(indices=tf.reshape(tf.stack([zero64, zero64 + 1]), [2, 1]),
                           values=tf.cast(tf.stack([counter, -counter]), tf.float32), dense_shape=[2])


def _single_sparse(zero64, counter):
    """A SparseTensor [counter] of shape [1]."""
    return tf.SparseTensor(indices=tf.reshape(zero64, [1, 1]), values=tf.stack([tf.cast(counter, tf.float32)]),
                           dense_shape=[1])


def _finish(case, fetch, threads):
    with pytest.raises(tf.errors.OutOfRangeError):
        case.evaluate(fetch)
    for thread in threads:
        thread.join()


class BatchTest(TestCase):

    def _check_pair_batch(self, results, start, size):
        self.assertAllEqual(results[0], np.arange(start, start + size))
        self.assertAllEqual(results[1].indices, np.vstack((np.arange(2 * size) // 2, [0, 1] * size)).T)
        expected = np.arange(2 * start, 2 * (start + size)) // 2 * ([1, -1] * size)  # x, -x, x+1, -(x+1), ...
        self.assertAllEqual(results[1].values, expected)
        self.assertAllEqual(results[1].dense_shape, [size, 2])
        self.assertAllEqual(results[2], [b"string"] * size)

    def _check_single_batch(self, results, size):
        assert len(results[0]) == size
        self.assertAllEqual(results[0], results[1].values)
        self.assertAllEqual(results[1].indices, np.vstack((np.arange(size), np.zeros(size))).T)
        self.assertAllEqual(results[1].dense_shape, [size, 1])
        self.assertAllEqual(results[2], [b"string"] * size)

    def _testOneThreadHelper(self, use_dict):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 10, 3
            zero64, counter = _counter(num_batches * batch_size)
            sparse_counter = _pair_sparse(zero64, counter)
            if use_dict:
                batched = tf.train.batch({"c": counter, "s": sparse_counter, "S": "string"}, batch_size=batch_size)
                batched_fetch = [batched["c"], batched["s"], batched["S"]]
            else:
                batched_fetch = tf.train.batch([counter, sparse_counter, "string"], batch_size=batch_size)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            for i in range(num_batches):
                self._check_pair_batch(self.evaluate(batched_fetch), i * batch_size, batch_size)
            _finish(self, batched_fetch, threads)

    def testOneThread(self):
        self._testOneThreadHelper(use_dict=False)

    def testOneThreadDict(self):
        self._testOneThreadHelper(use_dict=True)

    def _unsigned(self, dtype):
        with tf.Graph().as_default():
            batched = tf.train.batch([tf.constant([0, 1, 2, 3, 4, 5], dtype=dtype)], batch_size=2)
            with self.cached_session() as sess:
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess=sess, coord=coord)
                self.evaluate(batched)
                coord.request_stop()
                for thread in threads:
                    thread.join()

    def testUint32DataTypes(self):
        self._unsigned(tf.uint32)

    def testUint64DataTypes(self):
        self._unsigned(tf.uint64)

    def testOneThreadDynamicPad(self):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 10, 3
            _, counter = _counter(num_batches * batch_size)
            string = tf.tile(["string"], tf.cast(tf.stack([counter]), tf.int32))
            _initialize(self)
            batched = tf.train.batch([counter, string], batch_size=batch_size, dynamic_pad=True)
            threads = tf.train.start_queue_runners()
            for i in range(num_batches):
                results = self.evaluate(batched)
                expected_results = np.arange(i * batch_size, (i + 1) * batch_size)
                max_len = expected_results[-1]
                self.assertAllEqual(results[0], expected_results)
                self.assertAllEqual(results[1], [[b"string"] * rep + [b""] * (max_len - rep)
                                                 for rep in expected_results])
            _finish(self, batched, threads)

    def testOneThreadEnqueueMany(self):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 10, 3
            zero64, counter = _counter(num_batches * batch_size)
            pre_batched = tf.train.batch([counter, _single_sparse(zero64, counter), "string"], batch_size=2)
            batched = tf.train.batch(pre_batched, enqueue_many=True, batch_size=batch_size)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            for i in range(num_batches):
                results = self.evaluate(batched)
                self.assertAllEqual(results[0], np.arange(i * batch_size, (i + 1) * batch_size))
                self.assertAllEqual(results[1].values, np.arange(i * batch_size, (i + 1) * batch_size))
                self._check_single_batch(results, batch_size)
            _finish(self, batched, threads)

    def _many_threads(self, extra_elements, allow_smaller_final_batch):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 10, 3
            zero64, counter = _counter(num_batches * batch_size + extra_elements)
            batched = tf.train.batch([counter, _single_sparse(zero64, counter), "string"], batch_size=batch_size,
                                     num_threads=4, allow_smaller_final_batch=allow_smaller_final_batch)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            all_counts = []
            for _ in range(num_batches):
                results = self.evaluate(batched)
                self._check_single_batch(results, batch_size)
                all_counts.extend(results[0])
            if extra_elements:
                results = self.evaluate(batched)
                self._check_single_batch(results, extra_elements)
                all_counts.extend(results[0])
            assert sorted(all_counts) == list(range(num_batches * batch_size + extra_elements))
            _finish(self, batched, threads)

    def testManyThreads(self):
        self._many_threads(0, False)

    def testOneThreadSmallerBatch(self):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches, extra_elements = 10, 3, 5
            zero64, counter = _counter(num_batches * batch_size + extra_elements)
            batched = tf.train.batch([counter, _pair_sparse(zero64, counter), "string"], batch_size=batch_size,
                                     allow_smaller_final_batch=True)
            _initialize(self)
            threads = tf.train.start_queue_runners()
            for i in range(num_batches):
                self._check_pair_batch(self.evaluate(batched), i * batch_size, batch_size)
            self._check_pair_batch(self.evaluate(batched), num_batches * batch_size, extra_elements)
            _finish(self, batched, threads)

    def testManyThreadsSmallerBatch(self):
        self._many_threads(5, True)

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            _, counter = _counter(30)
            batched = tf.train.batch([counter, "string"], batch_size=10, shared_name="SHARED_NAME_XYZ", name="Q")
            assert batched[0].op.inputs[0].op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"

    def testCannotInferRankError(self):
        with tf.Graph().as_default(), self.cached_session():
            x = tf.placeholder(dtype=tf.int64)
            with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
                tf.train.batch([x], batch_size=2)

    def _inferred_dense_shape(self, known, batch, **kwargs):
        with tf.Graph().as_default():
            if known:
                sparse = tf.SparseTensor(indices=[[0]], values=[1.0], dense_shape=[1])
                assert sparse.dense_shape.get_shape().as_list() == [1]
            else:
                sparse = tf.SparseTensor(indices=tf.placeholder(tf.int64), values=tf.placeholder(tf.float32),
                                         dense_shape=tf.placeholder(tf.int64))
                assert sparse.dense_shape.get_shape().num_elements() is None
            shape = batch([sparse], batch_size=2, **kwargs).dense_shape.get_shape()
            return shape.as_list() if known else shape.num_elements()

    def testBatchedSparseTensorInferredShape(self):
        assert self._inferred_dense_shape(True, tf.train.batch) == [2]

    def testBatchedSparseTensorInferredShapeEnqueueMany(self):
        assert self._inferred_dense_shape(True, tf.train.batch, enqueue_many=True) == [1]

    def testBatchedSparseTensorInferredShapeUnknownRank(self):
        assert self._inferred_dense_shape(False, tf.train.batch) is None

    def testBatchedSparseTensorInferredShapeUnknownRankEnqueueMany(self):
        assert self._inferred_dense_shape(False, tf.train.batch, enqueue_many=True) is None

    def testSingleElementDict(self):
        with tf.Graph().as_default():
            x = tf.train.batch({"c": [12, 12]}, batch_size=8)
            assert x["c"].get_shape().as_list() == [8, 2]

    def _testKeepInputHelper(self, num_threads, enqueue_many, keep_input_vector=False):
        with tf.Graph().as_default(), self.cached_session():
            batch_size, num_batches = 5, 4
            counter = tf.Variable(0).count_up_to(num_batches * batch_size * 2)
            sparse_counter = tf.SparseTensor(indices=tf.zeros([1, 1], dtype=tf.int64),
                                             values=tf.stack([tf.cast(counter, tf.float32)]), dense_shape=[1])
            to_batch = [counter, sparse_counter, "string"]
            if enqueue_many:
                to_batch = tf.train.batch(to_batch, 4 if keep_input_vector else 1)
            keep_input = tf.squeeze(tf.equal(0, tf.mod(to_batch[0], 2)))
            batched = tf.train.maybe_batch(to_batch, keep_input, batch_size, num_threads=num_threads,
                                           enqueue_many=enqueue_many)
            self.evaluate(tf.initialize_all_variables())
            self.evaluate(tf.initialize_local_variables())
            threads = tf.train.start_queue_runners()
            for _ in range(num_batches):
                results = self.evaluate(batched)
                self.assertAllEqual([0] * batch_size, np.mod(results[0], 2))
                self.assertAllEqual([0] * batch_size, np.mod(results[1].values, 2))
                self.assertAllEqual([b"string"] * batch_size, results[2])
            _finish(self, batched, threads)

    def testSingleThreadKeepInput(self):
        self._testKeepInputHelper(1, False)

    def testSingleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(1, True)

    def testMultipleThreadKeepInput(self):
        self._testKeepInputHelper(5, False)

    def testMultipleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(5, True)

    def testMaybeEnqueuePerExample(self):
        self._testKeepInputHelper(1, True, keep_input_vector=True)

    def testMultipleThreadMaybeEnqueuePerExample(self):
        self._testKeepInputHelper(5, True, keep_input_vector=True)

    def testInvalidKeepInputVector(self):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="`keep_input` cannot be a vector"):
                tf.train.maybe_batch([tf.zeros(5)], keep_input=tf.constant([True, False]), batch_size=1,
                                     enqueue_many=False)
            with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
                tf.train.maybe_batch([tf.zeros(5)], keep_input=tf.constant([[True], [False]]), batch_size=1,
                                     enqueue_many=True)
            with pytest.raises(ValueError, match="must be known at graph construction"):
                tf.train.maybe_batch([tf.zeros(5)], keep_input=tf.placeholder(tf.bool), batch_size=1,
                                     enqueue_many=True)

    def _maybe(self, keep_input):
        return lambda tensors, **kwargs: tf.train.maybe_batch(tensors, keep_input=keep_input, **kwargs)

    def testMaybeBatchedSparseTensorInferredShape(self):
        assert self._inferred_dense_shape(True, self._maybe(True)) == [2]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueMany(self):
        assert self._inferred_dense_shape(True, self._maybe(True), enqueue_many=True) == [1]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueManyPerExample(self):
        with tf.Graph().as_default():
            sparse = tf.SparseTensor(indices=[[0], [0]], values=[1.0, 2.0], dense_shape=[2])
            assert sparse.dense_shape.get_shape().as_list() == [1]
            batched = tf.train.maybe_batch([sparse], keep_input=[True, False], batch_size=2, enqueue_many=True)
            assert batched.dense_shape.get_shape().as_list() == [1]

    def testMaybeBatchedSparseTensorInferredShapeUnknownRank(self):
        assert self._inferred_dense_shape(False, self._maybe(True)) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankEnqueueMany(self):
        assert self._inferred_dense_shape(False, self._maybe(True), enqueue_many=True) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankPerExample(self):
        assert self._inferred_dense_shape(False, self._maybe([True, False]), enqueue_many=True) is None

    def testMaybeBatchCorrectValues(self):
        with tf.Graph().as_default():
            sparse_t = tf.SparseTensor(indices=[[0, 1], [0, 2], [1, 0], [1, 3]], dense_shape=[2, 4],
                                       values=[5, 4, 7, 2])
            batched = tf.train.maybe_batch([sparse_t], keep_input=tf.constant([True, False]), batch_size=1,
                                           enqueue_many=True)
            with self.cached_session():
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(coord=coord)
                batched_np = self.evaluate(batched)
                coord.request_stop()
                for thread in threads:
                    thread.join()
            self.assertAllEqual([[0, 1], [0, 2]], batched_np.indices)
            self.assertAllEqual([5, 4], batched_np.values)
            self.assertAllEqual([1, 4], batched_np.dense_shape)
