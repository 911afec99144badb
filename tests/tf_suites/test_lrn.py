"""TensorFlow's local response normalization suite, on both backends.

Port of tensorflow/python/kernel_tests/nn_ops/lrn_op_test.py (tensorflow/tensorflow at 229c5692a76e): the same
test methods, random shapes and parameters, reference computation and tolerances, rewritten against
``harness.tf`` (``nn.local_response_normalization`` is ``tf.nn.local_response_normalization``,
``gradient_checker.compute_gradient_error`` is ``tf.test.compute_gradient_error``).  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, run_deprecated_v1, tf


class LRNOpTest(TestCase):

    def _LRN(self, input_image, lrn_depth_radius=5, bias=1.0, alpha=1.0, beta=0.5):
        """The normalization written out element by element (the reference)."""
        output = np.array(input_image, copy=True)
        depth = input_image.shape[3]
        for b, r, c, d in np.ndindex(*input_image.shape):
            patch = input_image[b, r, c, max(0, d - lrn_depth_radius):min(depth, d + lrn_depth_radius + 1)]
            output[b, r, c, d] /= np.power(bias + alpha * np.sum(patch * patch), beta)
        return output

    def _RunAndVerify(self, dtype):
        with self.cached_session():
            shape = np.random.randint(1, 16, size=4)
            shape[3] += 1  # a depth of at least 2
            p = tf.placeholder(dtype, shape=shape)
            lrn_depth_radius = np.random.randint(1, min(8, shape[3]))
            bias = 1.0 + np.random.rand()
            alpha = 2.0 * np.random.rand()
            beta = 0.01 + 2.0 * np.random.rand()
            lrn_t = tf.nn.local_response_normalization(p, name="lrn", depth_radius=lrn_depth_radius, bias=bias,
                                                       alpha=alpha, beta=beta)
            params = {p: np.random.rand(*shape).astype("f")}
            result = lrn_t.eval(feed_dict=params)
        expected = self._LRN(params[p], lrn_depth_radius=lrn_depth_radius, bias=bias, alpha=alpha, beta=beta)
        err = np.amax(np.abs(result - expected))
        if dtype == tf.float32:
            self.assertTrue(err < 1e-4)
        else:
            self.assertTrue(err < 1e-2)
        self.assertShapeEqual(expected, lrn_t)

    @run_deprecated_v1
    def testCompute(self):
        for _ in range(2):
            self._RunAndVerify(tf.float32)
            self._RunAndVerify(tf.float16)  # TF runs float16 where no GPU is present

    @run_deprecated_v1
    def testGradientsZeroInput(self):
        with self.session():
            shape = [4, 4, 4, 4]
            p = tf.placeholder(tf.float32, shape=shape)
            inp_array = np.zeros(shape).astype("f")
            lrn_op = tf.nn.local_response_normalization(p, 2, 1.0, 0.0, 1.0, name="lrn")
            grad = tf.gradients([lrn_op], [p])[0]
            r = grad.eval(feed_dict={p: inp_array})
        expected = np.ones(shape).astype("f")
        self.assertAllClose(r, expected)
        self.assertShapeEqual(expected, grad)

    def _RunAndVerifyGradients(self, dtype):
        with self.cached_session():
            shape = np.random.randint(1, 5, size=4)
            shape[3] += 1  # a depth of at least 2
            lrn_depth_radius = np.random.randint(1, min(8, shape[3]))
            bias = 1.0 + np.random.rand()
            alpha = 1.0 * np.random.rand()
            beta = 0.01 + 1.0 * np.random.rand()
            inp_array = np.random.rand(*shape).astype(np.float32 if dtype == tf.float32 else np.float16)
            inp = tf.constant(list(inp_array.ravel(order="C")), shape=shape, dtype=dtype)
            lrn_op = tf.nn.local_response_normalization(inp, name="lrn", depth_radius=lrn_depth_radius, bias=bias,
                                                        alpha=alpha, beta=beta)
            err = tf.test.compute_gradient_error(inp, shape, lrn_op, shape)
        if dtype == tf.float32:
            self.assertLess(err, 1e-4)
        else:
            self.assertLess(err, 1.0)

    @run_deprecated_v1
    def testGradients(self):
        for _ in range(2):
            self._RunAndVerifyGradients(tf.float32)
            self._RunAndVerifyGradients(tf.float16)  # TF runs float16 where no GPU is present
