"""TensorFlow's RMSPropOptimizer suite, on both backends.

Port of tensorflow/python/training/rmsprop_test.py (tensorflow/tensorflow at 16b518595a58): the same
test methods, parameter grid, inputs and expected values, rewritten against ``harness.tf``.  The original
is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import copy
import itertools
import math

import numpy as np

from tests.tf_suites.harness import TestCase, tf

_DATA_TYPES = ("float16", "float32")
_TEST_PARAM_VALUES = [
    # learning_rate, decay, momentum, epsilon, centered
    [0.5, 0.9, 0.0, 1e-3, True],
    [0.5, 0.9, 0.0, 1e-3, False],
    [0.1, 0.9, 0.0, 1e-3, True],
    [0.5, 0.95, 0.0, 1e-3, False],
    [0.5, 0.95, 0.0, 1e-5, True],
    [0.5, 0.95, 0.9, 1e-5, True],
]
_TESTPARAMS = [[data_type] + values for data_type, values in itertools.product(_DATA_TYPES, _TEST_PARAM_VALUES)]


def _rmsprop_update_numpy(var, g, mg, rms, mom, lr, decay, momentum, epsilon, centered):
    rms_t = rms * decay + (1 - decay) * g * g
    denom_t = rms_t + epsilon
    if centered:
        mg_t = mg * decay + (1 - decay) * g
        denom_t -= mg_t * mg_t
    else:
        mg_t = mg
    mom_t = momentum * mom + lr * g / np.sqrt(denom_t, dtype=denom_t.dtype)
    var_t = var - mom_t
    return var_t, mg_t, rms_t, mom_t


def _sparse_rmsprop_update_numpy(var, gindexs, gvalues, mg, rms, mom, lr, decay, momentum, epsilon, centered):
    mg_t, rms_t, mom_t, var_t = (copy.deepcopy(mg), copy.deepcopy(rms), copy.deepcopy(mom), copy.deepcopy(var))
    for gindex, gvalue in zip(gindexs, gvalues):
        rms_t[gindex] = rms[gindex] * decay + (1 - decay) * gvalue * gvalue
        denom_t = rms_t[gindex] + epsilon
        if centered:
            mg_t[gindex] = mg_t[gindex] * decay + (1 - decay) * gvalue
            denom_t -= mg_t[gindex] * mg_t[gindex]
        mom_t[gindex] = momentum * mom[gindex] + lr * gvalue / np.sqrt(denom_t)
        var_t[gindex] = var[gindex] - mom_t[gindex]
    return var_t, mg_t, rms_t, mom_t


class RMSPropOptimizerTest(TestCase):

    def _slots(self, opt, var0, var1, centered):
        mg0, mg1 = opt.get_slot(var0, "mg"), opt.get_slot(var1, "mg")
        self.assertEqual(mg0 is not None, centered)
        self.assertEqual(mg1 is not None, centered)
        found = [mg0, mg1]
        for slot_name in ("rms", "momentum"):
            for var in (var0, var1):
                slot = opt.get_slot(var, slot_name)
                self.assertTrue(slot is not None)
                found.append(slot)
        return found

    def _run_grid(self, sparse):
        for name, learning_rate, decay, momentum, epsilon, centered in _TESTPARAMS:
            dtype = getattr(tf, name)
            np_dtype = dtype.as_numpy_dtype
            with self.test_session():
                var0_np = np.array([1.0, 2.0], dtype=np_dtype)
                var1_np = np.array([3.0, 4.0], dtype=np_dtype)
                var0 = tf.Variable(var0_np)
                var1 = tf.Variable(var1_np)
                if sparse:
                    grads0_np = np.array([0.1], dtype=np_dtype)
                    grads1_np = np.array([0.01], dtype=np_dtype)
                    grads0_np_indices = np.array([0], dtype=np.int32)
                    grads1_np_indices = np.array([1], dtype=np.int32)
                    grads0 = tf.IndexedSlices(tf.constant(grads0_np), tf.constant(grads0_np_indices), tf.constant([1]))
                    grads1 = tf.IndexedSlices(tf.constant(grads1_np), tf.constant(grads1_np_indices), tf.constant([1]))
                else:
                    grads0_np = np.array([0.1, 0.2], dtype=np_dtype)
                    grads1_np = np.array([0.01, 0.2], dtype=np_dtype)
                    grads0 = tf.constant(grads0_np)
                    grads1 = tf.constant(grads1_np)
                opt = tf.train.RMSPropOptimizer(learning_rate=learning_rate, decay=decay, momentum=momentum,
                                                epsilon=epsilon, centered=centered)
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.initialize_all_variables().run()
                mg0, mg1, rms0, rms1, mom0, mom1 = self._slots(opt, var0, var1, centered)
                mg0_np = np.array([0.0, 0.0], dtype=np_dtype)
                mg1_np = np.array([0.0, 0.0], dtype=np_dtype)
                rms0_np = np.array([1.0, 1.0], dtype=np_dtype)
                rms1_np = np.array([1.0, 1.0], dtype=np_dtype)
                mom0_np = np.array([0.0, 0.0], dtype=np_dtype)
                mom1_np = np.array([0.0, 0.0], dtype=np_dtype)
                self.assertAllClose([1.0, 2.0], var0.eval())
                self.assertAllClose([3.0, 4.0], var1.eval())
                for _ in range(1, 5):
                    update.run()
                    hyper = (learning_rate, decay, momentum, epsilon, centered)
                    if sparse:
                        var0_np, mg0_np, rms0_np, mom0_np = _sparse_rmsprop_update_numpy(
                            var0_np, grads0_np_indices, grads0_np, mg0_np, rms0_np, mom0_np, *hyper)
                        var1_np, mg1_np, rms1_np, mom1_np = _sparse_rmsprop_update_numpy(
                            var1_np, grads1_np_indices, grads1_np, mg1_np, rms1_np, mom1_np, *hyper)
                    else:
                        var0_np, mg0_np, rms0_np, mom0_np = _rmsprop_update_numpy(
                            var0_np, grads0_np, mg0_np, rms0_np, mom0_np, *hyper)
                        var1_np, mg1_np, rms1_np, mom1_np = _rmsprop_update_numpy(
                            var1_np, grads1_np, mg1_np, rms1_np, mom1_np, *hyper)
                    if centered:
                        self.assertAllCloseAccordingToType(mg0_np, mg0.eval())
                        self.assertAllCloseAccordingToType(mg1_np, mg1.eval())
                    self.assertAllCloseAccordingToType(rms0_np, rms0.eval())
                    self.assertAllCloseAccordingToType(rms1_np, rms1.eval())
                    self.assertAllCloseAccordingToType(mom0_np, mom0.eval())
                    self.assertAllCloseAccordingToType(mom1_np, mom1.eval())
                    self.assertAllCloseAccordingToType(var0_np, var0.eval())
                    self.assertAllCloseAccordingToType(var1_np, var1.eval())

    def testDense(self):
        self._run_grid(sparse=False)

    def testSparse(self):
        self._run_grid(sparse=True)

    def _two_steps(self, momentum, epsilon):
        for name in ("float16", "float32"):
            dtype = getattr(tf, name)
            with self.test_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                opt = tf.train.RMSPropOptimizer(learning_rate=2.0, decay=0.9, momentum=momentum, epsilon=epsilon)
                update = opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.initialize_all_variables().run()
                _, _, rms0, rms1, mom0, mom1 = self._slots(opt, var0, var1, centered=False)
                self.assertAllClose([1.0, 2.0], var0.eval())
                self.assertAllClose([3.0, 4.0], var1.eval())
                yield update, rms0, rms1, mom0, mom1, var0, var1

    def testWithoutMomentum(self):
        for update, rms0, rms1, _, _, var0, var1 in self._two_steps(momentum=0.0, epsilon=1.0):
            # Step 1: the rms accumulators were 1, so a normal update.
            update.run()
            self.assertAllCloseAccordingToType(np.array([0.901, 0.901]), rms0.eval())
            self.assertAllCloseAccordingToType(np.array([0.90001, 0.90001]), rms1.eval())
            self.assertAllCloseAccordingToType(
                np.array([1.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0)), 2.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))]),
                var0.eval())
            self.assertAllCloseAccordingToType(
                np.array([3.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0)),
                          4.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0))]), var1.eval())
            # Step 2: the rms accumulators hold the previous update.
            update.run()
            self.assertAllCloseAccordingToType(np.array([0.901 * 0.9 + 0.001, 0.901 * 0.9 + 0.001]), rms0.eval())
            self.assertAllCloseAccordingToType(np.array([0.90001 * 0.9 + 1e-5, 0.90001 * 0.9 + 1e-5]), rms1.eval())
            self.assertAllCloseAccordingToType(
                np.array([1.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))
                          - (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1.0)),
                          2.0 - (0.1 * 2.0 / math.sqrt(0.901 + 1.0))
                          - (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1.0))]),
                var0.eval())
            self.assertAllCloseAccordingToType(
                np.array([3.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0))
                          - (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 1e-5 + 1.0)),
                          4.0 - (0.01 * 2.0 / math.sqrt(0.90001 + 1.0))
                          - (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 1e-5 + 1.0))]),
                var1.eval())

    def testWithMomentum(self):
        for update, rms0, rms1, mom0, mom1, var0, var1 in self._two_steps(momentum=0.5, epsilon=1e-5):
            # Step 1: rms = 1, mom = 0, so a normal update.
            update.run()
            self.assertAllCloseAccordingToType(np.array([0.901, 0.901]), rms0.eval())
            self.assertAllCloseAccordingToType(np.array([0.90001, 0.90001]), rms1.eval())
            mom0_1 = 0.1 * 2.0 / math.sqrt(0.901 + 1e-5)
            mom1_1 = 0.01 * 2.0 / math.sqrt(0.90001 + 1e-5)
            self.assertAllCloseAccordingToType(np.array([mom0_1, mom0_1]), mom0.eval())
            self.assertAllCloseAccordingToType(np.array([mom1_1, mom1_1]), mom1.eval())
            self.assertAllCloseAccordingToType(np.array([1.0 - mom0_1, 2.0 - mom0_1]), var0.eval())
            self.assertAllCloseAccordingToType(np.array([3.0 - mom1_1, 4.0 - mom1_1]), var1.eval())
            # Step 2: the rms accumulators hold the previous update.
            update.run()
            self.assertAllCloseAccordingToType(np.array([0.901 * 0.9 + 0.001, 0.901 * 0.9 + 0.001]), rms0.eval())
            self.assertAllCloseAccordingToType(np.array([0.90001 * 0.9 + 1e-5, 0.90001 * 0.9 + 1e-5]), rms1.eval())
            mom0_2 = 0.5 * mom0_1 + (0.1 * 2.0 / math.sqrt(0.901 * 0.9 + 0.001 + 1e-5))
            mom1_2 = 0.5 * mom1_1 + (0.01 * 2.0 / math.sqrt(0.90001 * 0.9 + 2e-5))
            self.assertAllCloseAccordingToType(np.array([mom0_2, mom0_2]), mom0.eval())
            self.assertAllCloseAccordingToType(np.array([mom1_2, mom1_2]), mom1.eval())
            self.assertAllCloseAccordingToType(np.array([1.0 - mom0_1 - mom0_2, 2.0 - mom0_1 - mom0_2]), var0.eval())
            self.assertAllCloseAccordingToType(np.array([3.0 - mom1_1 - mom1_2, 4.0 - mom1_1 - mom1_2]), var1.eval())
