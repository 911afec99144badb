"""TensorFlow's in_top_k suite, on both backends.

Port of tensorflow/python/kernel_tests/math_ops/in_topk_op_test.py (tensorflow/tensorflow at 367004ae82af): the
same test methods, inputs and expected values, rewritten against ``harness.tf`` (``nn_ops.in_top_k`` is
``tf.nn.in_top_k``).  The original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License,
Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, tf


class InTopKTest(TestCase):

    def _validateInTopK(self, predictions, target, k, expected):
        np_ans = np.array(expected, np.bool_)
        with self.cached_session():
            precision = tf.nn.in_top_k(predictions, target, k)
            out = self.evaluate(precision)
            self.assertAllClose(np_ans, out)
            self.assertShapeEqual(np_ans, precision)

    def testInTop1(self):
        self._validateInTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]], [3, 2], 1, [True, False])

    def testInTop2(self):
        self._validateInTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]], [2, 2], 2, [False, True])

    def testInTop2Tie(self):
        # classes 2 and 3 share the second place: both count as in the top 2
        self._validateInTopK([[0.1, 0.3, 0.2, 0.2], [0.1, 0.3, 0.2, 0.2]], [2, 3], 2, [True, True])

    def testInTop2_int64Target(self):
        target = np.asarray([0, 2]).astype(np.int64)
        self._validateInTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]], target, 2, [False, True])

    def testInTopNan(self):
        predictions = [[0.1, float("nan"), 0.2, 0.4], [0.1, 0.2, 0.3, float("inf")]]
        self._validateInTopK(predictions, [1, 3], 2, [False, False])

    def testBadTarget(self):
        # an out-of-range target is simply not in the top k
        self._validateInTopK([[0.1, 0.3, 0.2, 0.2], [0.1, 0.3, 0.2, 0.2]], [2, 4], 2, [True, False])

    testXlaOutOfRangeTarget = excluded(
        "eager: runs in_top_k inside a tf.function compiled with XLA (jit_compile=True)",
        "targets -1 and 2 of two classes are out of range, so not in the top 1, under XLA")

    def testEmpty(self):
        self._validateInTopK(np.empty([0, 5]), np.empty([0], np.int32), 2, [])

    def testTensorK(self):
        k = tf.constant(3)
        self._validateInTopK([[0.1, 0.3, 0.2, 0.4], [0.1, 0.2, 0.3, 0.4]], [0, 2], k, [False, True])
