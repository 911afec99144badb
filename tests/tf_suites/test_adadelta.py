"""TensorFlow's AdadeltaOptimizer suite, on both backends.

Port of tensorflow/python/training/adadelta_test.py (tensorflow/tensorflow at 01fc22e646ae): the same
test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, tf



class AdadeltaOptimizerTest(TestCase):

    def doTestBasic(self, use_resource=False):
        num_updates = 4
        for name in ("float16", "float32"):
            dtype = getattr(tf, name)
            for grad in (0.2, 0.1, 0.01):
                for lr in (1.0, 0.5, 0.1):
                    with self.test_session():
                        self._check(dtype, grad, lr, num_updates, use_resource)

    def _check(self, dtype, grad, lr, num_updates, use_resource):
        var0_init = [1.0, 2.0]
        var1_init = [3.0, 4.0]
        var0 = tf.Variable(var0_init, dtype=dtype, use_resource=use_resource)
        var1 = tf.Variable(var1_init, dtype=dtype, use_resource=use_resource)
        grads = tf.constant([grad, grad], dtype=dtype)
        accum = 0.0
        accum_update = 0.0
        rho = 0.95
        epsilon = 1e-8
        adadelta_opt = tf.train.AdadeltaOptimizer(lr, rho, epsilon)
        adadelta_update = adadelta_opt.apply_gradients(zip([grads, grads], [var0, var1]))
        opt_vars = adadelta_opt.variables()
        # TensorFlow's test reads var._shared_name: a reference variable's op name.
        self.assertStartsWith(opt_vars[0].name, var0.op.name)
        self.assertStartsWith(opt_vars[1].name, var0.op.name)
        self.assertStartsWith(opt_vars[2].name, var1.op.name)
        self.assertStartsWith(opt_vars[3].name, var1.op.name)
        self.assertEqual(4, len(opt_vars))
        tf.global_variables_initializer().run()
        self.assertEqual(["accum", "accum_update"], adadelta_opt.get_slot_names())
        slot, slot_update = [], []
        for var in (var0, var1):
            slot.append(adadelta_opt.get_slot(var, "accum"))
            slot_update.append(adadelta_opt.get_slot(var, "accum_update"))
            for made in (slot[-1], slot_update[-1]):
                self.assertEqual(made.get_shape(), var.get_shape())
                self.assertFalse(made in tf.trainable_variables())
        self.assertAllClose(var0_init, var0.eval())
        self.assertAllClose(var1_init, var1.eval())
        tot_update = 0
        for _ in range(num_updates):
            adadelta_update.run()
            accum = accum * rho + (grad**2) * (1 - rho)
            update = np.sqrt(accum_update + epsilon) * (1. / np.sqrt(accum + epsilon)) * grad
            accum_update = accum_update * rho + (update**2) * (1.0 - rho)
            tot_update += update * lr
            for slot_idx in range(2):
                self.assertAllCloseAccordingToType(np.array([accum, accum], dtype=dtype.as_numpy_dtype()),
                                                   slot[slot_idx].eval(), rtol=1e-3)
                self.assertAllCloseAccordingToType(
                    np.array([accum_update, accum_update], dtype=dtype.as_numpy_dtype()),
                    slot_update[slot_idx].eval(), rtol=1e-3)
            self.assertAllCloseAccordingToType(
                np.array([var0_init[0] - tot_update, var0_init[1] - tot_update], dtype=dtype.as_numpy_dtype()),
                var0.eval(), rtol=1e-3)
            self.assertAllCloseAccordingToType(
                np.array([var1_init[0] - tot_update, var1_init[1] - tot_update], dtype=dtype.as_numpy_dtype()),
                var1.eval(), rtol=1e-3)

    def testBasic(self):
        self.doTestBasic(use_resource=False)

    def testResourceBasic(self):
        self.doTestBasic(use_resource=True)

    def testMinimizeSparseResourceVariable(self):
        for name in ("float16", "float32", "float64"):
            dtype = getattr(tf, name)
            with self.test_session():
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                loss = pred * pred
                sgd_op = tf.train.AdadeltaOptimizer(1.0, 1.0, 1.0).minimize(loss)
                tf.global_variables_initializer().run()
                self.assertAllCloseAccordingToType([[1.0, 2.0]], var0.eval())
                sgd_op.run()
                self.assertAllCloseAccordingToType([[-111, -138]], var0.eval())
