"""TensorFlow's ``tf.data.Dataset.batch()`` suite (BatchTest), on both backends.

Port of tensorflow/python/data/kernel_tests/batch_test.py (tensorflow/tensorflow at 0337b19fa6a7), its
BatchTest class: the same test methods, inputs and expected values, rewritten against ``harness.tf`` in graph
mode; combinations become parameters.  The checkpoint and random-access classes test TF2-only APIs and
are not ported.  The original is Copyright 2017 The TensorFlow Authors, licensed under the Apache License,
Version 2.0.
"""

import numpy as np
import pytest

from tests.tf_suites.dataset_test_base import DatasetTestBase
from tests.tf_suites.harness import excluded, skip_ours, tf


def _flatten_shapes(shapes):
    return [shapes] if not isinstance(shapes, (tuple, list, dict)) else \
        [s for part in (shapes.values() if isinstance(shapes, dict) else shapes) for s in _flatten_shapes(part)]


class BatchTest(DatasetTestBase):

    @pytest.mark.parametrize("count", [0, 28])
    @pytest.mark.parametrize("batch_size", [14, 15])
    @pytest.mark.parametrize("drop_remainder", [True, False])
    @pytest.mark.parametrize("num_parallel_calls", [None, 1, 2, 4])
    def testBasic(self, count, batch_size, drop_remainder, num_parallel_calls):
        # TensorSliceDataset -> MapDataset(square) -> RepeatDataset(count) -> BatchDataset(batch_size).
        components = (np.arange(7), np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
                      np.array(37.0) * np.arange(7))

        def _map_fn(x, y, z):
            return tf.square(x), tf.square(y), tf.square(z)

        dataset = tf.data.Dataset.from_tensor_slices(components).map(_map_fn).repeat(count).batch(
            batch_size, drop_remainder, num_parallel_calls)
        get_next = self.getNext(dataset)
        dim0 = batch_size if drop_remainder else None
        self.assertEqual([s.as_list() for s in _flatten_shapes(tf.data.get_output_shapes(dataset))],
                         [[dim0] + list(c.shape[1:]) for c in components])
        num_full_batches = (count * 7) // batch_size
        for i in range(num_full_batches):
            result = self.evaluate(get_next())
            for component, result_component in zip(components, result):
                for j in range(batch_size):
                    self.assertAllEqual(component[(i * batch_size + j) % 7] ** 2, result_component[j])
        if not drop_remainder and (count * 7) % batch_size > 0:
            result = self.evaluate(get_next())
            for component, result_component in zip(components, result):
                for j in range((count * 7) % batch_size):
                    self.assertAllEqual(component[(num_full_batches * batch_size + j) % 7] ** 2, result_component[j])
        with self.assertRaises(tf.errors.OutOfRangeError):
            self.evaluate(get_next())

    def testInvalidBatchSize(self):
        with self.assertRaises(tf.errors.InvalidArgumentError):
            dataset = tf.data.Dataset.range(10).batch(0)
            self.evaluate(dataset._variant_tensor)

    @skip_ours("not yet emulated: datasets as dataset elements (DatasetSpec)")
    def testDataset(self):
        dataset = tf.data.Dataset.range(10).map(tf.data.Dataset.from_tensors).batch(5)
        dataset = dataset.map(lambda x: x).unbatch().flat_map(lambda x: x)
        self.assertDatasetProduces(dataset, expected_output=range(10))

    def testSparse(self):
        def _sparse(i):
            return tf.SparseTensorValue(indices=[[0]], values=(i * [1]), dense_shape=[1])

        dataset = tf.data.Dataset.range(10).map(_sparse).batch(5)
        expected_output = [tf.SparseTensorValue(indices=[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]],
                                                values=[i * 5 + k for k in range(5)], dense_shape=[5, 1])
                           for i in range(2)]
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testSparseWithDifferentDenseShapes(self):
        def _sparse(i):
            return tf.SparseTensorValue(indices=tf.expand_dims(tf.range(i, dtype=tf.int64), 1),
                                        values=tf.fill([tf.cast(i, tf.int32)], i), dense_shape=[i])

        dataset = tf.data.Dataset.range(10).map(_sparse).batch(5)
        expected_output = []
        for i in range(2):
            indices, values = [], []
            for j in range(5):
                for k in range(i * 5 + j):
                    indices.append([j, k])
                    values.append(i * 5 + j)
            expected_output.append(tf.SparseTensorValue(indices=indices, values=values,
                                                        dense_shape=[5, (i + 1) * 5 - 1]))
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testSparseNested(self):
        def _sparse(i):
            return tf.SparseTensorValue(indices=[[0]], values=(i * [1]), dense_shape=[1])

        dataset = tf.data.Dataset.range(10).map(_sparse).batch(5).batch(2)
        expected_output = [tf.SparseTensorValue(
            indices=[[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0], [0, 4, 0],
                     [1, 0, 0], [1, 1, 0], [1, 2, 0], [1, 3, 0], [1, 4, 0]],
            values=list(range(10)), dense_shape=[2, 5, 1])]
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    def testShapeError(self):
        def generator():
            yield [1.0, 2.0, 3.0]
            yield [4.0, 5.0, 6.0]
            yield [7.0, 8.0, 9.0, 10.0]

        dataset = tf.data.Dataset.from_generator(generator, tf.float32, output_shapes=[None]).batch(3)
        self.assertDatasetProduces(dataset, expected_error=(
            tf.errors.InvalidArgumentError,
            r"Cannot batch tensors with different shapes in component 0. First element had shape \[3\] and "
            r"element 2 had shape \[4\]."))

    @skip_ours("not yet emulated: RaggedTensor")
    def testRagged(self):
        dataset = tf.data.Dataset.range(10).map(lambda i: tf.RaggedTensor.from_tensor(i * [[1]])).batch(5)
        expected_output = [tf.ragged.constant([[[0]], [[1]], [[2]], [[3]], [[4]]]),
                           tf.ragged.constant([[[5]], [[6]], [[7]], [[8]], [[9]]])]
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    testRaggedWithDifferentShapes = excluded(
        "TF-private API (ragged_math_ops.range, ragged_concat_ops.stack; and RaggedTensor values)",
        "batching ragged elements of different shapes")

    @skip_ours("not yet emulated: RaggedTensor")
    def testRaggedNested(self):
        dataset = tf.data.Dataset.range(10).map(lambda i: tf.RaggedTensor.from_tensor(i * [[1]])).batch(5).batch(2)
        expected_output = [tf.ragged.constant([[[[0]], [[1]], [[2]], [[3]], [[4]]],
                                               [[[5]], [[6]], [[7]], [[8]], [[9]]]])]
        self.assertDatasetProduces(dataset, expected_output=expected_output)

    @skip_ours("not yet emulated: None components of dataset elements (NoneTensor)")
    def testNoneComponent(self):
        dataset = tf.data.Dataset.range(10).map(lambda x: (x, None)).batch(10).map(lambda x, y: x)
        self.assertDatasetProduces(dataset, expected_output=[list(range(10))])

    testDeterminismConfiguration = excluded(
        "TF-private API (script_ops.py_func timing, Dataset.with_options, checkDeterminism)",
        "batch's deterministic option against a py_func with random delays")

    @pytest.mark.parametrize("num_parallel_calls", [None, 1])
    def testName(self, num_parallel_calls):
        dataset = tf.data.Dataset.range(5).batch(5, num_parallel_calls=num_parallel_calls, name="batch")
        self.assertDatasetProduces(dataset, [list(range(5))])
