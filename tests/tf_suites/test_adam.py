"""TensorFlow's AdamOptimizer suite, on both backends.

Port of tensorflow/python/training/adam_test.py (tensorflow/tensorflow at 016bb3fc99d7): the same test
methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, tf

ALL_FLOATS = ("float16", "float32", "float64")


def adam_update_numpy(param, g_t, t, m, v, alpha=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8):
    """One Adam step in numpy, as TensorFlow's test writes it."""
    alpha_t = alpha * np.sqrt(1 - beta2**t) / (1 - beta1**t)
    m_t = beta1 * m + (1 - beta1) * g_t
    v_t = beta2 * v + (1 - beta2) * g_t * g_t
    param_t = param - alpha_t * m_t / (np.sqrt(v_t) + epsilon)
    return param_t, m_t, v_t


def _numpy_start(dtype):
    np_dtype = dtype.as_numpy_dtype
    return (np.array([1.0, 2.0], dtype=np_dtype), np.array([0.1, 0.1], dtype=np_dtype),
            np.array([3.0, 4.0], dtype=np_dtype), np.array([0.01, 0.01], dtype=np_dtype))


class AdamOptimizerTest(TestCase):

    def doTestSparse(self, use_resource=False):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                m0, v0, m1, v1 = 0.0, 0.0, 0.0, 0.0
                var0_np, grads0_np, var1_np, grads1_np = _numpy_start(dtype)
                var0 = tf.Variable(var0_np, use_resource=use_resource)
                var1 = tf.Variable(var1_np, use_resource=use_resource)
                grads0_np_indices = np.array([0, 1], dtype=np.int32)
                grads0 = tf.IndexedSlices(tf.constant(grads0_np), tf.constant(grads0_np_indices), tf.constant([2]))
                grads1_np_indices = np.array([0, 1], dtype=np.int32)
                grads1 = tf.IndexedSlices(tf.constant(grads1_np), tf.constant(grads1_np_indices), tf.constant([2]))
                opt = tf.train.AdamOptimizer()
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self.assertAllClose([1.0, 2.0], self.evaluate(var0))
                self.assertAllClose([3.0, 4.0], self.evaluate(var1))
                beta1_power, beta2_power = opt._get_beta_accumulators()
                for t in range(1, 4):
                    self.assertAllCloseAccordingToType(0.9**t, self.evaluate(beta1_power))
                    self.assertAllCloseAccordingToType(0.999**t, self.evaluate(beta2_power))
                    update.run()
                    var0_np, m0, v0 = adam_update_numpy(var0_np, grads0_np, t, m0, v0)
                    var1_np, m1, v1 = adam_update_numpy(var1_np, grads1_np, t, m1, v1)
                    self.assertAllCloseAccordingToType(var0_np, self.evaluate(var0))
                    self.assertAllCloseAccordingToType(var1_np, self.evaluate(var1))

    @run_deprecated_v1
    def testSparse(self):
        self.doTestSparse(use_resource=False)

    @run_deprecated_v1
    def testResourceSparse(self):
        self.doTestSparse(use_resource=True)

    @run_deprecated_v1
    def testSparseDevicePlacement(self):
        for index_dtype in (tf.int32, tf.int64):
            with self.cached_session():
                # TensorFlow forces a GPU when one is available; these machines have none.
                var = tf.Variable([[1.0], [2.0]])
                indices = tf.constant([0, 1], dtype=index_dtype)
                gathered_sum = tf.reduce_sum(tf.gather(var, indices))
                optimizer = tf.train.AdamOptimizer(3.0)
                minimize_op = optimizer.minimize(gathered_sum)
                tf.global_variables_initializer().run()
                minimize_op.run()

    @run_deprecated_v1
    def testSparseRepeatedIndices(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                repeated_index_update_var = tf.Variable([[1.0], [2.0]], dtype=dtype)
                aggregated_update_var = tf.Variable([[1.0], [2.0]], dtype=dtype)
                grad_repeated_index = tf.IndexedSlices(tf.constant([0.1, 0.1], shape=[2, 1], dtype=dtype),
                                                       tf.constant([1, 1]), tf.constant([2, 1]))
                grad_aggregated = tf.IndexedSlices(tf.constant([0.2], shape=[1, 1], dtype=dtype),
                                                   tf.constant([1]), tf.constant([2, 1]))
                repeated_update = tf.train.AdamOptimizer().apply_gradients(
                    [(grad_repeated_index, repeated_index_update_var)])
                aggregated_update = tf.train.AdamOptimizer().apply_gradients(
                    [(grad_aggregated, aggregated_update_var)])
                tf.global_variables_initializer().run()
                self.assertAllClose(aggregated_update_var, self.evaluate(repeated_index_update_var))
                for _ in range(3):
                    repeated_update.run()
                    aggregated_update.run()
                    self.assertAllClose(aggregated_update_var, self.evaluate(repeated_index_update_var))

    def doTestBasic(self, use_resource=False):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            with self.session(graph=tf.Graph()):
                m0, v0, m1, v1 = 0.0, 0.0, 0.0, 0.0
                var0_np, grads0_np, var1_np, grads1_np = _numpy_start(dtype)
                if use_resource:
                    var0 = tf.Variable(var0_np, name="var0_%d" % i, use_resource=True)
                    var1 = tf.Variable(var1_np, name="var1_%d" % i, use_resource=True)
                else:
                    var0 = tf.Variable(var0_np)
                    var1 = tf.Variable(var1_np)
                grads0 = tf.constant(grads0_np)
                grads1 = tf.constant(grads1_np)
                opt = tf.train.AdamOptimizer(learning_rate=0.001)
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                opt_variables = opt.variables()
                beta1_power, beta2_power = opt._get_beta_accumulators()
                self.assertTrue(beta1_power is not None)
                self.assertTrue(beta2_power is not None)
                self.assertIn(beta1_power, opt_variables)
                self.assertIn(beta2_power, opt_variables)
                with tf.Graph().as_default():
                    # Non-slot variables of another graph are not returned.
                    self.assertEqual(0, len(opt.variables()))
                self.evaluate(tf.global_variables_initializer())
                self.assertAllClose([1.0, 2.0], self.evaluate(var0))
                self.assertAllClose([3.0, 4.0], self.evaluate(var1))
                beta1_power, beta2_power = opt._get_beta_accumulators()
                for t in range(1, 4):
                    self.evaluate(update)
                    self.assertAllCloseAccordingToType(0.9**(t + 1), self.evaluate(beta1_power))
                    self.assertAllCloseAccordingToType(0.999**(t + 1), self.evaluate(beta2_power))
                    var0_np, m0, v0 = adam_update_numpy(var0_np, grads0_np, t, m0, v0)
                    var1_np, m1, v1 = adam_update_numpy(var1_np, grads1_np, t, m1, v1)
                    self.assertAllCloseAccordingToType(var0_np, self.evaluate(var0))
                    self.assertAllCloseAccordingToType(var1_np, self.evaluate(var1))
                    if use_resource:
                        self.assertEqual("var0_%d/Adam:0" % (i,), opt.get_slot(var=var0, name="m").name)

    def testBasic(self):
        with self.cached_session():
            self.doTestBasic(use_resource=False)

    def testResourceBasic(self):
        self.doTestBasic(use_resource=True)

    testBasicCallableParams = excluded(
        "eager: runs under context.eager_mode()", "doTestBasic with resource variables and callable hyper-parameters")

    @run_deprecated_v1
    def testTensorLearningRate(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                m0, v0, m1, v1 = 0.0, 0.0, 0.0, 0.0
                var0_np, grads0_np, var1_np, grads1_np = _numpy_start(dtype)
                var0 = tf.Variable(var0_np)
                var1 = tf.Variable(var1_np)
                grads0 = tf.constant(grads0_np)
                grads1 = tf.constant(grads1_np)
                opt = tf.train.AdamOptimizer(tf.constant(0.001))
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self.assertAllClose([1.0, 2.0], self.evaluate(var0))
                self.assertAllClose([3.0, 4.0], self.evaluate(var1))
                beta1_power, beta2_power = opt._get_beta_accumulators()
                for t in range(1, 4):
                    self.assertAllCloseAccordingToType(0.9**t, self.evaluate(beta1_power))
                    self.assertAllCloseAccordingToType(0.999**t, self.evaluate(beta2_power))
                    update.run()
                    var0_np, m0, v0 = adam_update_numpy(var0_np, grads0_np, t, m0, v0)
                    var1_np, m1, v1 = adam_update_numpy(var1_np, grads1_np, t, m1, v1)
                    self.assertAllCloseAccordingToType(var0_np, self.evaluate(var0))
                    self.assertAllCloseAccordingToType(var1_np, self.evaluate(var1))

    @run_deprecated_v1
    def testSharing(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                m0, v0, m1, v1 = 0.0, 0.0, 0.0, 0.0
                var0_np, grads0_np, var1_np, grads1_np = _numpy_start(dtype)
                var0 = tf.Variable(var0_np)
                var1 = tf.Variable(var1_np)
                grads0 = tf.constant(grads0_np)
                grads1 = tf.constant(grads1_np)
                opt = tf.train.AdamOptimizer()
                update1 = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                update2 = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                beta1_power, beta2_power = opt._get_beta_accumulators()
                self.assertAllClose([1.0, 2.0], self.evaluate(var0))
                self.assertAllClose([3.0, 4.0], self.evaluate(var1))
                # Three steps alternating the two updates: they share slots and accumulators.
                for t in range(1, 4):
                    self.assertAllCloseAccordingToType(0.9**t, self.evaluate(beta1_power))
                    self.assertAllCloseAccordingToType(0.999**t, self.evaluate(beta2_power))
                    if t % 2 == 0:
                        update1.run()
                    else:
                        update2.run()
                    var0_np, m0, v0 = adam_update_numpy(var0_np, grads0_np, t, m0, v0)
                    var1_np, m1, v1 = adam_update_numpy(var1_np, grads1_np, t, m1, v1)
                    self.assertAllCloseAccordingToType(var0_np, self.evaluate(var0))
                    self.assertAllCloseAccordingToType(var1_np, self.evaluate(var1))

    testTwoSessions = excluded(
        "eager: its first apply_gradients runs under context.eager_mode()",
        "one optimizer applied in eager mode, then in two graphs, keeps no state not keyed by graph")

    testSlotsUniqueEager = excluded(
        "eager: runs under context.eager_mode()", "six distinct optimizer variables for two resource variables")
