"""TensorFlow's top_k suite, on both backends.

Port of tensorflow/python/kernel_tests/math_ops/topk_op_test.py (tensorflow/tensorflow at 4e1606f6ea28): the same
test methods, inputs, expected values and checks, rewritten against ``harness.tf`` (``nn_ops.top_k`` is
``tf.nn.top_k``); the benchmark class is not a test.  The original is Copyright 2015 The TensorFlow Authors,
licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, run_deprecated_v1, tf


class TopKTest(TestCase):

    def _validateTopK(self, inputs, k, expected_values, expected_indices, sorted=True, index_type=None):
        index_type = tf.int32 if index_type is None else index_type
        np_expected_values = np.array(expected_values)
        np_expected_indices = np.array(expected_indices)
        with self.cached_session():
            values_op, indices_op = tf.nn.top_k(inputs, k, sorted=sorted, index_type=index_type)
            values, indices = self.evaluate([values_op, indices_op])
            self.assertEqual(indices.dtype, index_type)
            self.assertShapeEqual(np_expected_values, values_op)
            self.assertShapeEqual(np_expected_indices, indices_op)
            if sorted:
                self.assertAllClose(np_expected_values, values)
                if (not np.issubdtype(np_expected_values.dtype, np.floating)
                        and np_expected_values.dtype != tf.bfloat16.as_numpy_dtype):
                    self.assertAllEqual(np_expected_indices, indices)
                else:
                    # floating values: indices of (nearly) equal values may swap
                    indices_not_equal = np_expected_indices != indices
                    if np.any(indices_not_equal):
                        self.assertAllClose(np.asarray(expected_values)[indices_not_equal],
                                            values[indices_not_equal])
            else:
                np_inputs = np.array(inputs)
                for result_index, src_index in np.ndenumerate(indices):
                    np.testing.assert_almost_equal(values[result_index], np_inputs[result_index[0], src_index])
                # of two equal values the lower index comes first
                for batch_index in range(values.shape[0]):
                    for index in range(values.shape[1] - 1):
                        if np.isclose(values[batch_index, index], values[batch_index, index + 1]):
                            self.assertLess(indices[batch_index, index], indices[batch_index, index + 1])
                self.assertAllEqual(np.sort(np_expected_indices), np.sort(indices))
                self.assertAllClose(np.sort(np_expected_values), np.sort(values))

    def testTop1(self):
        self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.3, 0.3, 0.2]], 1, [[0.4], [0.3]], [[3], [1]])

    def testTop2(self):
        self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.3, 0.4, 0.2]], 2, [[0.4, 0.3], [0.4, 0.3]],
                           [[3, 1], [2, 1]])

    def testOutputIndexType(self):
        for index_type in [tf.int16, tf.int32, tf.int64]:
            self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.3, 0.4, 0.2]], 2, [[0.4, 0.3], [0.4, 0.3]],
                               [[3, 1], [2, 1]], index_type=index_type)

    def testKType(self):
        for ktype in [tf.int32, tf.int64, tf.int16]:
            self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.3, 0.4, 0.2]], tf.constant(2, dtype=ktype),
                               [[0.4, 0.3], [0.4, 0.3]], [[3, 1], [2, 1]])

    def testTop3(self):
        for k in range(3, 11, 2):
            for dim in range(512, 12288, 512):
                inputs = np.random.permutation(np.linspace(0, 100, dim, dtype=np.float64))
                self._validateTopK(inputs, k, -np.sort(-inputs)[:k], np.argsort(-inputs)[:k])

    def testTop1AllNan(self):
        self._validateTopK([[np.nan, np.nan], [np.nan, np.nan]], 1, [[np.nan], [np.nan]], [[0], [0]])

    def _sorted_case(self, dtype, b, n, k):
        inputs = np.random.permutation(np.linspace(0, 100, b * n, dtype=dtype)).reshape(b, n)
        self._validateTopK(inputs, k, -np.sort(-inputs, axis=1)[:, :k], np.argsort(-inputs, axis=1)[:, :k])

    def testLargeSort(self):
        for dtype in (np.float32, np.float16, tf.bfloat16.as_numpy_dtype):
            self._sorted_case(dtype, 10, 5000, 5000)

    def testLargeTopK(self):
        for dtype in (np.float32, np.float16, tf.bfloat16.as_numpy_dtype):
            self._sorted_case(dtype, 10, 5000, 4999)

    def testMediumTopK(self):
        for dtype in (np.float32, np.float16, tf.bfloat16.as_numpy_dtype):
            self._sorted_case(dtype, 5, 500, 50)

    def testStableSort(self):
        b, n = 5, 500
        for k in [1, 5, 50, 500]:
            # many repeated integers in [0, 3]; a stable sort gives the expected indices
            inputs = np.random.permutation(np.linspace(0, 3, b * n, dtype=np.int32)).reshape(b, n)
            self._validateTopK(inputs, k, -np.sort(-inputs, axis=1)[:, :k],
                               np.argsort(-inputs, axis=1, kind="mergesort")[:, :k])

    def testTopAll(self):
        self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.3, 0.3, 0.2]], 4,
                           [[0.4, 0.3, 0.2, 0.1], [0.3, 0.3, 0.2, 0.1]], [[3, 1, 2, 0], [1, 2, 3, 0]])

    def testTop3Unsorted(self):
        self._validateTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.4, 0.3, 0.2]], 3, [[0.2, 0.3, 0.4], [0.2, 0.4, 0.3]],
                           [[2, 1, 3], [3, 1, 2]], sorted=False)

    def testTop3Vector(self):
        self._validateTopK([3, 6, 15, 18, 6, 12, 1, 17, 3, 0, 4, 19, 1, 6], 3, [19, 18, 17], [11, 3, 7])

    def testTensorK(self):
        self._validateTopK([3, 6, 15, 18, 6, 12, 1, 17, 3, 0, 4, 19, 1, 6], tf.constant(3), [19, 18, 17],
                           [11, 3, 7])

    def testTop3ZeroRows(self):
        self._validateTopK(np.zeros([0, 10], dtype=np.float32), 3, np.zeros([0, 3], dtype=np.float32),
                           np.zeros([0, 3], dtype=np.int32))

    def testKNegative(self):
        with self.assertRaisesRegex((ValueError, tf.errors.InvalidArgumentError),
                                    "Need k >= 0, got -7|non-negative"):
            self.evaluate(tf.nn.top_k([[0.1, 0.2], [0.3, 0.4]], -7))

    def testKTooLarge(self):
        with self.assertRaisesRegex((ValueError, tf.errors.InvalidArgumentError),
                                    r"must have last dimension >= k = 4|must have at least k"):
            self.evaluate(tf.nn.top_k([[0.1, 0.2], [0.3, 0.4]], 4))

    @run_deprecated_v1
    def testTopKGradients(self):
        with self.session() as sess:
            inputs = tf.placeholder(tf.float32, shape=[2, 5])
            values, _ = tf.nn.top_k(inputs, 3)
            grad = sess.run(tf.gradients(values, inputs, grad_ys=[[[1., 2., 3.], [4., 5., 6.]]]),
                            feed_dict={inputs: [[2., -1., 1000., 3., 4.], [1., 5., 2., 4., 3.]]})[0]
        self.assertEqual(grad.tolist(), [[0., 0., 1., 3., 2.], [0., 4., 0., 5., 6.]])
