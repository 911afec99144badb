"""TensorFlow's clip-ops kernel suite (clip_by_value, clip_by_norm, clip_by_global_norm, clip_by_average_norm).

Port of tensorflow/python/kernel_tests/clip_ops_test.py (tensorflow/tensorflow at 00f0938ae85c): the
same test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, run_deprecated_v1, tf

CLIP_DTYPES = ("float16", "float32", "float64", "int16", "int32", "int64", "uint8")
X0 = [-2.0, 0.0, 0.0, 4.0, 0.0, 0.0]  # with X1 = [1, -2], global norm sqrt(1 + 4^2 + 2^2 + 2^2) = 5


class ClipTest(TestCase):

    @run_deprecated_v1
    def testClipByValueGradient(self):
        inputs = tf.constant([1.0, 2.0, 3.0, 4.0], dtype=tf.float32)
        outputs_1 = tf.clip_by_value(inputs, 0.5, 3.5)
        min_val = tf.constant([0.5, 0.5, 0.5, 0.5], dtype=tf.float32)
        max_val = tf.constant([3.5, 3.5, 3.5, 3.5], dtype=tf.float32)
        outputs_2 = tf.clip_by_value(inputs, min_val, max_val)
        with self.cached_session():
            error_1 = tf.test.compute_gradient_error(inputs, [4], outputs_1, [4])
            self.assertLess(error_1, 1e-4)
            error_2 = tf.test.compute_gradient_error(inputs, [4], outputs_2, [4])
            self.assertLess(error_2, 1e-4)

    def testClipByValue(self):
        with self.session(use_gpu=True):
            x = tf.constant([-5.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3])
            np_ans = [[-4.4, 2.0, 3.0], [4.0, 4.4, 4.4]]
            clip_value = 4.4
            tf_ans = self.evaluate(tf.clip_by_value(x, -clip_value, clip_value))
        self.assertAllClose(np_ans, tf_ans)

    def _clip_types(self, np_ans, make_min, make_max):
        for name in CLIP_DTYPES:
            dtype = getattr(tf, name)
            with self.cached_session(use_gpu=True):
                x = tf.constant([1, 2, 3, 4, 5, 6], shape=[2, 3], dtype=dtype)
                tf_ans = self.evaluate(tf.clip_by_value(x, make_min(dtype), make_max(dtype)))
            self.assertAllClose(np_ans, tf_ans)

    def testClipByValue0Type(self):
        # [Tensor, Scalar, Scalar]
        self._clip_types([[2, 2, 3], [4, 4, 4]], lambda dtype: 2, lambda dtype: 4)

    def testClipByValue1Type(self):
        # [Tensor, Tensor, Scalar]
        self._clip_types([[2, 2, 3], [4, 4, 4]],
                         lambda dtype: tf.constant([2, 2, 2, 3, 3, 3], shape=[2, 3], dtype=dtype), lambda dtype: 4)

    def testClipByValue2Type(self):
        # [Tensor, Scalar, Tensor]
        self._clip_types([[4, 4, 4], [4, 5, 6]], lambda dtype: 4,
                         lambda dtype: tf.constant([6, 6, 6, 6, 6, 6], shape=[2, 3], dtype=dtype))

    def testClipByValue3Type(self):
        # [Tensor, Tensor, Tensor]
        self._clip_types([[2, 2, 3], [5, 5, 6]],
                         lambda dtype: tf.constant([2, 2, 2, 5, 5, 5], shape=[2, 3], dtype=dtype),
                         lambda dtype: tf.constant([5, 5, 5, 7, 7, 7], shape=[2, 3], dtype=dtype))

    def testClipByValueBadShape(self):
        with self.session(use_gpu=True):
            x = tf.constant([-5.0, 2.0, 3.0, 4.0, 5.0, 6.0], shape=[2, 3, 1])
            clip = tf.constant([1.0, 2.0])  # a nonsensical shape
            with self.assertRaises(ValueError):
                tf.clip_by_value(x, -clip, clip)
            with self.assertRaises(ValueError):
                tf.clip_by_value(x, 1.0, clip)

    def testClipByValueNonFinite(self):
        with self.cached_session():
            x = tf.constant([float('NaN'), float('Inf'), -float('Inf')])
            np_ans = [float('NaN'), 4.0, -4.0]
            clip_value = 4.0
            tf_ans = self.evaluate(tf.clip_by_value(x, -clip_value, clip_value))
        self.assertAllClose(np_ans, tf_ans)

    def _testClipIndexedSlicesByValue(self, values, indices, shape, clip_value_min, clip_value_max, expected):
        with self.session(use_gpu=True):
            values = tf.constant(values)
            indices = tf.constant(indices)
            shape = tf.constant(shape)
            indexed_slices = tf.IndexedSlices(values, indices, shape)
            clipped = tf.clip_by_value(indexed_slices, clip_value_min, clip_value_max)
            self.assertIsInstance(clipped, tf.IndexedSlices)
            # TensorFlow compares after the session closed: its assertAllClose evaluates in a new one.
        self.assertAllClose(clipped.values, expected)

    def testClipByValueWithIndexedSlicesClipped(self):
        values = [[[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 0.0, -1.0]]]
        indices = [2, 6]
        shape = [10, 2, 3]
        self._testClipIndexedSlicesByValue(values, indices, shape, -2.0, 2.0,
                                           [[[-2.0, 0.0, 0.0], [2.0, 0.0, 0.0]], [[0.0, 2.0, 0.0], [0.0, 0.0, -1.0]]])
        self._testClipIndexedSlicesByValue(values, indices, shape, 1.0, 2.0,
                                           [[[1.0, 1.0, 1.0], [2.0, 1.0, 1.0]], [[1.0, 2.0, 1.0], [1.0, 1.0, 1.0]]])
        self._testClipIndexedSlicesByValue(
            values, indices, shape, -2.0, -1.0,
            [[[-2.0, -1.0, -1.0], [-1.0, -1.0, -1.0]], [[-1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]]])

    def _clip_by_norm(self, values, clip_norm, np_ans, axes=None, times=1):
        with self.session(use_gpu=True):
            x = tf.constant(values, shape=[2, 3])
            answers = [self.evaluate(tf.clip_by_norm(x, clip_norm, axes)) for _ in range(times)]
        for tf_ans in answers:
            self.assertAllClose(np_ans, tf_ans)

    def testClipByNormClipped(self):
        # Norm of x = sqrt(3^2 + 4^2) = 5 > 4: clipped; built twice as TensorFlow's test does.
        self._clip_by_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], 4.0, [[-2.4, 0.0, 0.0], [3.2, 0.0, 0.0]], times=2)

    @run_deprecated_v1
    def testClipByNormGradientZeros(self):
        with self.session(use_gpu=True):
            x = tf.zeros([3])
            b = tf.clip_by_norm(x, 1.)
            grad, = tf.gradients(b, x)
            self.assertAllEqual(grad, [1., 1., 1.])

    def testClipByNormBadShape(self):
        with self.session(use_gpu=True):
            x = tf.constant([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], shape=[2, 3, 1])
            clip = tf.constant([1.0, 2.0])  # a nonsensical shape
            with self.assertRaises(ValueError):
                tf.clip_by_norm(x, clip)

    def testClipByNormNotClipped(self):
        self._clip_by_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], 6.0, [[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])

    def testClipByNormZero(self):
        self._clip_by_norm([0.0] * 6, 6.0, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])

    def testClipByNormClippedWithDim0(self):
        # Norm of x[:, 0] = 5, of x[:, 2] = 3.
        self._clip_by_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 4.0, [[-2.4, 0.0, 0.0], [3.2, 0.0, 3.0]], axes=[0])

    def testClipByNormClippedWithDim1(self):
        # Norm of x[0, :] = 3, of x[1, :] = 5.
        self._clip_by_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 4.0, [[-3.0, 0.0, 0.0], [3.2, 0.0, 2.4]], axes=[1])

    def testClipByNormNotClippedWithAxes(self):
        self._clip_by_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 3.0], 6.0, [[-3.0, 0.0, 0.0], [4.0, 0.0, 3.0]], axes=[1])

    def _global_norm(self, x0_values, clip_norm, np_ans_0, np_ans_1, expected_norm, with_nones=False,
                     x1_values=(1.0, -2.0)):
        with self.session(use_gpu=True):
            x0 = tf.constant(x0_values, shape=[2, 3])
            x1 = tf.constant(list(x1_values))
            clip_norm = clip_norm() if callable(clip_norm) else clip_norm
            if with_nones:
                ans, norm = tf.clip_by_global_norm((x0, None, x1, None), clip_norm)
                self.assertTrue(ans[1] is None)
                self.assertTrue(ans[3] is None)
                ans = [ans[0], ans[2]]
            else:
                ans, norm = tf.clip_by_global_norm((x0, x1), clip_norm)
            tf_ans_1 = ans[0].eval()
            tf_ans_2 = ans[1].eval()
            tf_norm = self.evaluate(norm)
        self.assertAllClose(tf_norm, expected_norm)
        self.assertAllClose(np_ans_0, tf_ans_1)
        self.assertAllClose(np_ans_1, tf_ans_2)

    @run_deprecated_v1
    def testClipByGlobalNormClipped(self):
        # The tensors scaled by 4.0 / 5.0.
        self._global_norm(X0, 4.0, [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], [0.8, -1.6], 5.0)

    @run_deprecated_v1
    def testClipByGlobalNormClippedTensor(self):
        self._global_norm(X0, lambda: tf.constant(4.0), [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], [0.8, -1.6], 5.0)

    @run_deprecated_v1
    def testClipByGlobalNormSupportsNone(self):
        self._global_norm(X0, 4.0, [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]], [0.8, -1.6], 5.0, with_nones=True)

    @run_deprecated_v1
    def testClipByGlobalNormWithIndexedSlicesClipped(self):
        with self.session(use_gpu=True):
            x0 = tf.constant(X0, shape=[2, 3])
            x1 = tf.IndexedSlices(tf.constant([1.0, -2.0]), tf.constant([3, 4]))
            clip_norm = 4.0
            np_ans_0 = [[-1.6, 0.0, 0.0], [3.2, 0.0, 0.0]]
            np_ans_1 = [0.8, -1.6]
            ans, norm = tf.clip_by_global_norm([x0, x1], clip_norm)
            tf_ans_1 = self.evaluate(ans[0])
            tf_ans_2 = self.evaluate(ans[1].values)
            tf_norm = self.evaluate(norm)
        self.assertAllClose(tf_norm, 5.0)
        self.assertAllClose(np_ans_0, tf_ans_1)
        self.assertAllClose(np_ans_1, tf_ans_2)

    def testClipByGlobalNormPreservesDenseShape(self):
        dense_shape = (1,)
        slices = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]), dense_shape=dense_shape)
        ans, _ = tf.clip_by_global_norm([slices], 1.0)
        modified_slices = ans[0]
        self.assertEqual(dense_shape, slices.dense_shape)
        self.assertEqual(dense_shape, modified_slices.dense_shape)

    @run_deprecated_v1
    def testClipByGlobalNormNotClipped(self):
        self._global_norm(X0, 6.0, [[-2.0, 0.0, 0.0], [4.0, 0.0, 0.0]], [1.0, -2.0], 5.0)

    @run_deprecated_v1
    def testClipByGlobalNormZero(self):
        self._global_norm([0.0] * 6, 6.0, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [0.0, 0.0], 0.0, x1_values=(0.0, 0.0))

    @run_deprecated_v1
    def testClipByGlobalNormInf(self):
        # An infinite global norm makes every element NaN.
        with self.session(use_gpu=True):
            x0 = tf.constant([-2.0, 0.0, np.inf, 4.0, 0.0, 0.0], shape=[2, 3])
            x1 = tf.constant([1.0, -2.0])
            ans, norm = tf.clip_by_global_norm([x0, x1], 6.0)
            tf_ans_1 = ans[0].eval()
            tf_ans_2 = ans[1].eval()
            tf_norm = self.evaluate(norm)
            self.assertAllEqual(tf_norm, float('inf'))
            self.assertAllEqual(tf_ans_1, np.full([2, 3], float('nan')))
            self.assertAllEqual(tf_ans_2, np.full([2], float('nan')))

    def _average_norm(self, values, clip_norm, np_ans):
        # Average norm of [[-3, 0, 0], [4, 0, 0]] = sqrt(3^2 + 4^2) / 6 = 0.83333333.
        with self.session(use_gpu=True):
            x = tf.constant(values, shape=[2, 3])
            clip_norm = clip_norm() if callable(clip_norm) else clip_norm
            tf_ans = self.evaluate(tf.clip_by_average_norm(x, clip_norm))
        self.assertAllClose(np_ans, tf_ans)

    def testClipByAverageNormClipped(self):
        self._average_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], 0.8, [[-2.88, 0.0, 0.0], [3.84, 0.0, 0.0]])

    def testClipByAverageNormClippedTensor(self):
        self._average_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], lambda: tf.constant(0.8),
                           [[-2.88, 0.0, 0.0], [3.84, 0.0, 0.0]])

    def testClipByAverageNormNotClipped(self):
        self._average_norm([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], 0.9, [[-3.0, 0.0, 0.0], [4.0, 0.0, 0.0]])

    def testClipByAverageNormZero(self):
        self._average_norm([0.0] * 6, 0.9, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])

    def testClipByAverageNormReplacedWithClipByNorm(self):
        # clip_by_average_norm(t, c) is clip_by_norm(t, c * size(t)).
        with self.session(use_gpu=True):
            x = tf.constant([-3.0, 0.0, 0.0, 4.0, 0.0, 0.0], shape=[2, 3])
            clip_norm = tf.constant(0.8)
            with_norm = tf.clip_by_average_norm(x, clip_norm)
            without_norm = tf.clip_by_norm(x, clip_norm * tf.cast(tf.size(x), tf.float32))
            self.assertAllClose(self.evaluate(with_norm), self.evaluate(without_norm))

    @run_deprecated_v1
    def testClipByValueEmptyTensor(self):
        # TensorFlow issue 19337.
        zero = tf.placeholder(dtype=tf.float32, shape=None)
        x = tf.clip_by_value(zero, zero, zero)
        y = tf.clip_by_value(zero, 1.0, 1.0)
        z = tf.clip_by_value(zero, zero, 1.0)
        w = tf.clip_by_value(zero, 1.0, zero)
        with self.session(use_gpu=True) as sess:
            sess.run([x, y, z, w], feed_dict={zero: np.zeros((7, 0))})
