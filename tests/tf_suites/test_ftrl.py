"""TensorFlow's FtrlOptimizer suite, on both backends.

Port of tensorflow/python/training/ftrl_test.py (tensorflow/tensorflow at 021bfd4e8001): the same test
methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf

HALF_AND_FLOAT = ("float16", "float32")


class FtrlOptimizerTest(TestCase):

    def _steps(self, var0_init, var1_init, steps, **ftrl_kwargs):
        """Per dtype: FTRL (lr 3.0, accumulator 0.1) from the given values, grads [0.1, 0.2] / [0.01, 0.02]."""
        use_resource = ftrl_kwargs.pop("use_resource", False)
        with tf.Graph().as_default():
            for name in HALF_AND_FLOAT:
                dtype = getattr(tf, name)
                with self.cached_session():
                    var0 = tf.Variable(var0_init, dtype=dtype, use_resource=use_resource)
                    var1 = tf.Variable(var1_init, dtype=dtype, use_resource=use_resource)
                    grads0 = tf.constant([0.1, 0.2], dtype=dtype)
                    grads1 = tf.constant([0.01, 0.02], dtype=dtype)
                    opt = tf.train.FtrlOptimizer(3.0, initial_accumulator_value=0.1, **ftrl_kwargs)
                    update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                    tf.global_variables_initializer().run()
                    v0_val, v1_val = self.evaluate([var0, var1])
                    self.assertAllCloseAccordingToType(var0_init, v0_val)
                    self.assertAllCloseAccordingToType(var1_init, v1_val)
                    for _ in range(steps):
                        update.run()
                    yield self.evaluate([var0, var1])

    def doTestFtrlwithoutRegularization(self, use_resource=False):
        for v0_val, v1_val in self._steps([0.0, 0.0], [0.0, 0.0], 3, l1_regularization_strength=0.0,
                                          l2_regularization_strength=0.0, use_resource=use_resource):
            self.assertAllCloseAccordingToType(np.array([-2.60260963, -4.29698515]), v0_val, half_rtol=1e-2)
            self.assertAllCloseAccordingToType(np.array([-0.28432083, -0.56694895]), v1_val)

    def testFtrlWithoutRegularization(self):
        self.doTestFtrlwithoutRegularization(use_resource=False)

    def testResourceFtrlWithoutRegularization(self):
        self.doTestFtrlwithoutRegularization(use_resource=True)

    def testFtrlwithoutRegularization2(self):
        for v0_val, v1_val in self._steps([1.0, 2.0], [4.0, 3.0], 3, l1_regularization_strength=0.0,
                                          l2_regularization_strength=0.0):
            self.assertAllCloseAccordingToType(np.array([-2.55607247, -3.98729396]), v0_val)
            self.assertAllCloseAccordingToType(np.array([-0.28232238, -0.56096673]), v1_val)

    def testMinimizeSparseResourceVariable(self):
        with tf.Graph().as_default():
            for name in ("float16", "float32", "float64"):
                dtype = getattr(tf, name)
                with self.cached_session():
                    var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                    x = tf.constant([[4.0], [5.0]], dtype=dtype)
                    pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                    loss = pred * pred
                    sgd_op = tf.train.FtrlOptimizer(1.0).minimize(loss)
                    tf.global_variables_initializer().run()
                    self.assertAllCloseAccordingToType([[1.0, 2.0]], self.evaluate(var0))
                    sgd_op.run()
                    self.assertAllCloseAccordingToType([[0, 1]], self.evaluate(var0), atol=0.01)

    def testFtrlWithL1(self):
        for v0_val, v1_val in self._steps([1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
                                          l2_regularization_strength=0.0):
            self.assertAllCloseAccordingToType(np.array([-7.66718769, -10.91273689]), v0_val)
            self.assertAllCloseAccordingToType(np.array([-0.93460727, -1.86147261]), v1_val)

    def testFtrlWithL1_L2(self):
        for v0_val, v1_val in self._steps([1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
                                          l2_regularization_strength=2.0):
            self.assertAllCloseAccordingToType(np.array([-0.24059935, -0.46829352]), v0_val)
            self.assertAllCloseAccordingToType(np.array([-0.02406147, -0.04830509]), v1_val)

    def testFtrlWithL1_L2_L2Shrinkage(self):
        # l2 shrinkage pulls weights towards the origin: smaller magnitudes than without it.
        for v0_val, v1_val in self._steps([1.0, 2.0], [4.0, 3.0], 10, l1_regularization_strength=0.001,
                                          l2_regularization_strength=2.0, l2_shrinkage_regularization_strength=0.1):
            self.assertAllCloseAccordingToType(np.array([-0.22578995, -0.44345796]), v0_val)
            self.assertAllCloseAccordingToType(np.array([-0.14378493, -0.13229476]), v1_val)

    def testFtrlWithL1_L2_L2ShrinkageSparse(self):
        with tf.Graph().as_default():
            for name in HALF_AND_FLOAT:
                dtype = getattr(tf, name)
                with self.cached_session():
                    var0 = tf.Variable([[1.0], [2.0]], dtype=dtype)
                    var1 = tf.Variable([[4.0], [3.0]], dtype=dtype)
                    grads0 = tf.IndexedSlices(tf.constant([0.1], shape=[1, 1], dtype=dtype), tf.constant([0]),
                                              tf.constant([2, 1]))
                    grads1 = tf.IndexedSlices(tf.constant([0.02], shape=[1, 1], dtype=dtype), tf.constant([1]),
                                              tf.constant([2, 1]))
                    opt = tf.train.FtrlOptimizer(3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                                                 l2_regularization_strength=2.0,
                                                 l2_shrinkage_regularization_strength=0.1)
                    update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                    tf.global_variables_initializer().run()
                    v0_val, v1_val = self.evaluate([var0, var1])
                    self.assertAllCloseAccordingToType([[1.0], [2.0]], v0_val)
                    self.assertAllCloseAccordingToType([[4.0], [3.0]], v1_val)
                    for _ in range(10):
                        update.run()
                    v0_val, v1_val = self.evaluate([var0, var1])
                    self.assertAllCloseAccordingToType([[-0.22578995], [2.]], v0_val)
                    self.assertAllCloseAccordingToType([[4.], [-0.13229476]], v1_val)

    def testFtrlWithL2ShrinkageDoesNotChangeLrSchedule(self):
        with tf.Graph().as_default():
            for name in HALF_AND_FLOAT:
                dtype = getattr(tf, name)
                with self.cached_session():
                    var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                    var1 = tf.Variable([1.0, 2.0], dtype=dtype)
                    grads0 = tf.constant([0.1, 0.2], dtype=dtype)
                    grads1 = tf.constant([0.1, 0.2], dtype=dtype)
                    opt0 = tf.train.FtrlOptimizer(3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                                                  l2_regularization_strength=2.0,
                                                  l2_shrinkage_regularization_strength=0.1)
                    opt1 = tf.train.FtrlOptimizer(3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                                                  l2_regularization_strength=2.0)
                    update0 = opt0.apply_gradients([(grads0, var0)])
                    update1 = opt1.apply_gradients([(grads1, var1)])
                    tf.global_variables_initializer().run()
                    v0_val, v1_val = self.evaluate([var0, var1])
                    self.assertAllCloseAccordingToType([1.0, 2.0], v0_val)
                    self.assertAllCloseAccordingToType([1.0, 2.0], v1_val)
                    for _ in range(10):
                        update0.run()
                        update1.run()
                    v0_val, v1_val = self.evaluate([var0, var1])
                    # var0 has l2 shrinkage, so it is smaller than var1 in magnitude.
                    self.assertTrue((v0_val**2 < v1_val**2).all())
                    # TensorFlow's test reads the private Optimizer._slots table; ours keeps the same layout.
                    accum0 = list(self.evaluate(opt0._slots)["accum"].values())[0]
                    accum1 = list(self.evaluate(opt1._slots)["accum"].values())[0]
                    # l2 shrinkage does not change how the gradient accumulator updates.
                    self.assertAllCloseAccordingToType(accum0, accum1)

    def applyOptimizer(self, opt, dtype, steps=5, is_sparse=False):
        if is_sparse:
            var0 = tf.Variable([[0.0], [0.0]], dtype=dtype)
            var1 = tf.Variable([[0.0], [0.0]], dtype=dtype)
            grads0 = tf.IndexedSlices(tf.constant([0.1], shape=[1, 1], dtype=dtype), tf.constant([0]),
                                      tf.constant([2, 1]))
            grads1 = tf.IndexedSlices(tf.constant([0.02], shape=[1, 1], dtype=dtype), tf.constant([1]),
                                      tf.constant([2, 1]))
        else:
            var0 = tf.Variable([0.0, 0.0], dtype=dtype)
            var1 = tf.Variable([0.0, 0.0], dtype=dtype)
            grads0 = tf.constant([0.1, 0.2], dtype=dtype)
            grads1 = tf.constant([0.01, 0.02], dtype=dtype)
        update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
        tf.global_variables_initializer().run()
        v0_val, v1_val = self.evaluate([var0, var1])
        zeros = [[0.0], [0.0]] if is_sparse else [0.0, 0.0]
        self.assertAllCloseAccordingToType(zeros, v0_val)
        self.assertAllCloseAccordingToType(zeros, v1_val)
        for _ in range(steps):
            update.run()
        return self.evaluate([var0, var1])

    # Started from zeros and without L1/L2, FTRL-Proximal equals GradientDescent with a fixed learning rate
    # (learning_rate_power 0) and Adagrad with an adaptive one (learning_rate_power -0.5).
    def _equivalent(self, learning_rate_power, make_other, is_sparse, **tolerances):
        with tf.Graph().as_default():
            for name in HALF_AND_FLOAT:
                dtype = getattr(tf, name)
                with self.cached_session():
                    val0, val1 = self.applyOptimizer(
                        tf.train.FtrlOptimizer(3.0, learning_rate_power=learning_rate_power,
                                               initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                                               l2_regularization_strength=0.0),
                        dtype, is_sparse=is_sparse)
                with self.cached_session():
                    val2, val3 = self.applyOptimizer(make_other(), dtype, is_sparse=is_sparse)
                self.assertAllCloseAccordingToType(val0, val2, **tolerances)
                self.assertAllCloseAccordingToType(val1, val3, **tolerances)

    def testEquivAdagradwithoutRegularization(self):
        self._equivalent(-0.5, lambda: tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1), False,
                         half_rtol=2e-3)

    def testEquivSparseAdagradwithoutRegularization(self):
        self._equivalent(-0.5, lambda: tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1), True)

    def testEquivSparseGradientDescentwithoutRegularization(self):
        self._equivalent(-0.0, lambda: tf.train.GradientDescentOptimizer(3.0), True)

    def testEquivGradientDescentwithoutRegularization(self):
        self._equivalent(-0.0, lambda: tf.train.GradientDescentOptimizer(3.0), False)
