"""TensorFlow's queue-based input pipeline suite (third part: tf.train.batch_join and maybe_batch_join), both backends.

Port of tensorflow/python/training/input_test.py (tensorflow/tensorflow at 0304934138cb): BatchJoinTest, with the
same inputs, steps and expectations, rewritten against ``harness.tf``.  The original is Copyright 2015 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.  The two-thread runs share one checking
helper (the original repeats it per test).
"""

import numpy as np
import pytest

from tests.tf_suites.harness import TestCase, tf


def _single_sparse(zero64, value):
    return tf.SparseTensor(indices=tf.reshape(zero64, [1, 1]), values=tf.stack([tf.cast(value, tf.float32)]),
                           dense_shape=[1])


def _sources(extra_elements):
    """Thread a counts 0..69(+extra), thread b yields 99 ninety(+extra) times."""
    num_a, num_b = 70 + extra_elements, 90 + extra_elements
    zero64 = tf.constant(0, dtype=tf.int64)
    counter = tf.Variable(zero64).count_up_to(num_a)
    ninety_nine = tf.train.limit_epochs(tf.constant(99, dtype=tf.int64), num_b)
    return zero64, counter, ninety_nine, num_a, num_b


class BatchJoinTest(TestCase):
    batch_size = 5

    def _run_two_threads(self, batched, num_a, num_b, extra_elements, dynamic_pad):
        """Both threads' examples arrive, a's in order; each batch's components agree; then OutOfRangeError."""
        self.evaluate(tf.global_variables_initializer())
        self.evaluate(tf.local_variables_initializer())
        threads = tf.train.start_queue_runners()
        all_a, count_string_a, seen_b = [], [], 0
        sizes = [self.batch_size] * ((num_a + num_b) // self.batch_size)
        if extra_elements:
            sizes.append(2 * extra_elements)
        for size in sizes:
            results = self.evaluate(batched)
            labels = results[1] if dynamic_pad else results[2]
            assert len(results[0]) == size and len(labels) == size
            if dynamic_pad:
                for s in labels:
                    if s[0] == b"b":
                        self.assertAllEqual(s, [b"b"] * 99)
                    else:
                        count_string_a.append(sum(x == b"a" for x in s))
                which_a = [i for i, s in enumerate(labels) if s[0] == b"a"]
                which_b = [i for i, s in enumerate(labels) if s[0] == b"b"]
            else:
                self.assertAllEqual(results[0], results[1].values)
                self.assertAllEqual(results[1].indices, np.vstack((np.arange(size), np.zeros(size))).T)
                self.assertAllEqual(results[1].dense_shape, [size, 1])
                which_a = [i for i, s in enumerate(labels) if s == b"a"]
                which_b = [i for i, s in enumerate(labels) if s == b"b"]
            assert len(which_a) + len(which_b) == size
            all_a.extend(results[0][i] for i in which_a)
            seen_b += len(which_b)
            self.assertAllEqual([99] * len(which_b), [results[0][i] for i in which_b])
        if dynamic_pad:
            self.assertAllEqual(count_string_a, np.arange(num_a) + 1)  # "a" tiled counter + 1 times
        self.assertAllEqual(all_a, np.arange(num_a))
        assert seen_b == num_b
        with pytest.raises(tf.errors.OutOfRangeError):
            self.evaluate(batched)
        for thread in threads:
            thread.join()

    def _testTwoThreadsHelper(self, use_dict):
        with tf.Graph().as_default(), self.cached_session():
            zero64, counter, ninety_nine, num_a, num_b = _sources(0)
            sparse_counter, sparse_ninety_nine = _single_sparse(zero64, counter), _single_sparse(zero64, ninety_nine)
            if use_dict:
                batched = tf.train.batch_join([{"c": counter, "s": sparse_counter, "S": "a"},
                                               {"c": ninety_nine, "s": sparse_ninety_nine, "S": "b"}],
                                              batch_size=self.batch_size)
                batched_fetch = [batched["c"], batched["s"], batched["S"]]
            else:
                batched_fetch = tf.train.batch_join([[counter, sparse_counter, "a"],
                                                     [ninety_nine, sparse_ninety_nine, "b"]],
                                                    batch_size=self.batch_size)
            assert len(batched_fetch) == 3
            assert batched_fetch[0].get_shape().as_list() == [self.batch_size]
            assert batched_fetch[1].indices.get_shape().as_list() == [None, 2]
            assert batched_fetch[1].values.get_shape().as_list() == [None]
            assert batched_fetch[1].dense_shape.get_shape().as_list() == [2]
            assert batched_fetch[2].get_shape().as_list() == [self.batch_size]
            self._run_two_threads(batched_fetch, num_a, num_b, 0, dynamic_pad=False)

    def testTwoThreads(self):
        self._testTwoThreadsHelper(use_dict=False)

    def testTwoThreadsDict(self):
        self._testTwoThreadsHelper(use_dict=True)

    def testMismatchedDictKeys(self):
        with tf.Graph().as_default(), pytest.raises(ValueError, match="must have the same keys"):
            tf.train.batch_join([{"c": 12, "s": 123, "S": "a"}, {"cool": -12, "s": 99, "S": "b"}], batch_size=8)

    def _dynamic_pad(self, extra_elements):
        with tf.Graph().as_default(), self.cached_session():
            _, counter, ninety_nine, num_a, num_b = _sources(extra_elements)
            a = tf.tile(["a"], tf.cast(tf.stack([counter + 1]), tf.int32))
            b = tf.tile(["b"], tf.cast(tf.stack([ninety_nine]), tf.int32))
            batched = tf.train.batch_join([[counter, a], [ninety_nine, b]], batch_size=self.batch_size,
                                          dynamic_pad=True, allow_smaller_final_batch=bool(extra_elements))
            assert len(batched) == 2
            first = None if extra_elements else self.batch_size
            assert batched[0].get_shape().as_list() == [first]
            assert batched[1].get_shape().as_list() == [first, None]
            self._run_two_threads(batched, num_a, num_b, extra_elements, dynamic_pad=True)

    def testTwoThreadsDynamicPad(self):
        self._dynamic_pad(0)

    def testTwoThreadsSmallerBatch(self):
        with tf.Graph().as_default(), self.cached_session():
            zero64, counter, ninety_nine, num_a, num_b = _sources(2)
            batched = tf.train.batch_join([[counter, _single_sparse(zero64, counter), "a"],
                                           [ninety_nine, _single_sparse(zero64, ninety_nine), "b"]],
                                          batch_size=self.batch_size, allow_smaller_final_batch=True)
            assert len(batched) == 3
            assert batched[0].get_shape().as_list() == [None]
            assert batched[1].indices.get_shape().as_list() == [None, 2]
            assert batched[1].values.get_shape().as_list() == [None]
            assert batched[1].dense_shape.get_shape().as_list() == [2]
            assert batched[2].get_shape().as_list() == [None]
            self._run_two_threads(batched, num_a, num_b, 2, dynamic_pad=False)

    def testTwoThreadsDynamicPadSmallerBatch(self):
        self._dynamic_pad(2)

    def testSharedName(self):
        with tf.Graph().as_default(), self.cached_session():
            counter = tf.Variable(tf.constant(0, dtype=tf.int64)).count_up_to(30)
            batched = tf.train.batch_join([[counter, "string"]], batch_size=10, shared_name="SHARED_NAME_XYZ",
                                          name="Q")
            assert len(batched) == 2
            assert batched[0].get_shape().as_list() == [10] and batched[1].get_shape().as_list() == [10]
            assert batched[0].op.inputs[0].op.node_def.attr["shared_name"].s == b"SHARED_NAME_XYZ"

    def testCannotInferRankError(self):
        with tf.Graph().as_default(), self.cached_session():
            x = tf.placeholder(dtype=tf.int64)
            with pytest.raises(ValueError, match="Cannot infer Tensor's rank"):
                tf.train.batch_join([[x]], batch_size=2)

    def testSingleElementDict(self):
        with tf.Graph().as_default():
            x = tf.train.batch_join([{"c": [12, 12]}], batch_size=8)
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
            batched = tf.train.maybe_batch_join([to_batch] * num_threads, keep_input, batch_size,
                                                enqueue_many=enqueue_many)
            self.evaluate(tf.global_variables_initializer())
            self.evaluate(tf.local_variables_initializer())
            threads = tf.train.start_queue_runners()
            for _ in range(num_batches):
                results = self.evaluate(batched)
                self.assertAllEqual([0] * batch_size, np.mod(results[0], 2))
                self.assertAllEqual([0] * batch_size, np.mod(results[1].values, 2))
                self.assertAllEqual([b"string"] * batch_size, results[2])
            with pytest.raises(tf.errors.OutOfRangeError):
                self.evaluate(batched)
            for thread in threads:
                thread.join()

    def testSingleThreadKeepInput(self):
        self._testKeepInputHelper(1, False)

    def testSingleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(1, True)

    def testMultipleThreadKeepInput(self):
        self._testKeepInputHelper(5, False)

    def testMultipleThreadKeepInputEnqueueMany(self):
        self._testKeepInputHelper(5, True)

    def testSingleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(1, True, keep_input_vector=True)

    def testMultipleThreadKeepInputPerExample(self):
        self._testKeepInputHelper(5, True, keep_input_vector=True)

    def testInvalidKeepInputVector(self):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="`keep_input` cannot be a vector"):
                tf.train.maybe_batch_join([[tf.zeros(5)]], keep_input=tf.constant([True, False]), batch_size=1,
                                          enqueue_many=False)
            with pytest.raises(ValueError, match="must be 0 or 1 dimensions"):
                tf.train.maybe_batch_join([[tf.zeros(5)]], keep_input=tf.constant([[True], [False]]), batch_size=1,
                                          enqueue_many=True)
            with pytest.raises(ValueError, match="must be known at graph construction"):
                tf.train.maybe_batch_join([[tf.zeros(5)]], keep_input=tf.placeholder(tf.bool), batch_size=1,
                                          enqueue_many=True)

    def _inferred(self, known, keep_input, per_example=False, **kwargs):
        with tf.Graph().as_default():
            if per_example:
                sparse = tf.SparseTensor(indices=[[0], [0]], values=[1.0, 2.0], dense_shape=[2])
            elif known:
                sparse = tf.SparseTensor(indices=[[0]], values=[1.0], dense_shape=[1])
            else:
                sparse = tf.SparseTensor(indices=tf.placeholder(tf.int64), values=tf.placeholder(tf.float32),
                                         dense_shape=tf.placeholder(tf.int64))
            shape = tf.train.maybe_batch_join([[sparse]], keep_input=keep_input, batch_size=2,
                                              **kwargs).dense_shape.get_shape()
            return shape.as_list() if known else shape.num_elements()

    def testMaybeBatchedSparseTensorInferredShape(self):
        assert self._inferred(True, True) == [2]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueMany(self):
        assert self._inferred(True, True, enqueue_many=True) == [1]

    def testMaybeBatchedSparseTensorInferredShapeEnqueueManyPerExample(self):
        assert self._inferred(True, [True, False], per_example=True, enqueue_many=True) == [1]

    def testMaybeBatchedSparseTensorInferredShapeUnknownRank(self):
        assert self._inferred(False, True) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankEnqueueMany(self):
        assert self._inferred(False, True, enqueue_many=True) is None

    def testMaybeBatchedSparseTensorInferredShapeUnknownRankPerExample(self):
        assert self._inferred(False, [True, False], enqueue_many=True) is None

    def testMaybeBatchCorrectValues(self):
        with tf.Graph().as_default():
            sparse = tf.SparseTensor(indices=[[0, 1], [0, 2], [1, 0], [1, 3]], dense_shape=[2, 4], values=[5, 4, 7, 2])
            batched = tf.train.maybe_batch_join([[sparse]], keep_input=tf.constant([True, False]), batch_size=1,
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
