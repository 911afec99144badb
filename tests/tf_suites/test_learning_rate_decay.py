"""TensorFlow's learning-rate decay suite (tf.compat.v1.train.*_decay), on both backends.

Port of tensorflow/python/keras/optimizer_v2/legacy_learning_rate_decay_test.py (tensorflow/tensorflow
at 2eb0e759be2a), the fuller successor of tensorflow/python/training/learning_rate_decay_test.py: the
same test classes and methods, inputs and expected values, rewritten against ``harness.tf`` (whose
``tf.train`` functions are the legacy schedules that file tests).  The original is Copyright 2015 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import math

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, run_in_graph_and_eager_modes, \
    run_v1_only, tf


class LRDecayTest(TestCase):

    @run_in_graph_and_eager_modes
    def testContinuous(self):
        self.evaluate(tf.global_variables_initializer())
        step = 5
        decayed_lr = tf.train.exponential_decay(0.05, step, 10, 0.96)
        expected = .05 * 0.96**(5.0 / 10.0)
        self.assertAllClose(self.evaluate(decayed_lr), expected, 1e-6)

    testStaircase = excluded("eager: its body runs only when executing eagerly",
                             "staircase exponential_decay on a variable step assigned 1, 2, 100")

    @run_deprecated_v1
    def testVariables(self):
        step = tf.Variable(1)
        assign_1 = step.assign(1)
        assign_2 = step.assign(2)
        assign_100 = step.assign(100)
        decayed_lr = tf.train.exponential_decay(.1, step, 3, 0.96, staircase=True)
        self.evaluate(tf.global_variables_initializer())
        # No change to the learning rate.
        self.evaluate(assign_1.op)
        self.assertAllClose(self.evaluate(decayed_lr), .1, 1e-6)
        self.evaluate(assign_2.op)
        self.assertAllClose(self.evaluate(decayed_lr), .1, 1e-6)
        # Decayed learning rate.
        self.evaluate(assign_100.op)
        expected = .1 * 0.96**(100 // 3)
        self.assertAllClose(self.evaluate(decayed_lr), expected, 1e-6)

    @run_in_graph_and_eager_modes
    def testPiecewiseConstant(self):
        x = tf.Variable(-999)
        decayed_lr = tf.train.piecewise_constant(x, [100, 110, 120], [1.0, 0.1, 0.01, 0.001])
        self.evaluate(tf.global_variables_initializer())
        self.assertAllClose(self.evaluate(decayed_lr), 1.0, 1e-6)
        for value, expected in ((100, 1.0), (105, 0.1), (110, 0.1), (120, 0.01), (999, 0.001)):
            self.evaluate(x.assign(value))
            self.assertAllClose(self.evaluate(decayed_lr), expected, 1e-6)

    @run_in_graph_and_eager_modes
    @run_v1_only("b/120545219")
    def testPiecewiseConstantEdgeCases(self):
        x_int = tf.Variable(0, dtype=tf.int32)
        boundaries, values = [-1.0, 1.0], [1, 2, 3]
        with self.assertRaises(ValueError):
            tf.train.piecewise_constant(x_int, boundaries, values)
        x = tf.Variable(0.0)
        boundaries, values = [-1.0, 1.0], [1.0, 2, 3]
        with self.assertRaises(ValueError):
            tf.train.piecewise_constant(x, boundaries, values)
        # Reference types are valid.
        x = tf.Variable(0.0)
        x_ref = x.op.outputs[0]  # a float32_ref tensor
        boundaries, values = [1.0, 2.0], [1, 2, 3]
        tf.train.piecewise_constant(x_ref, boundaries, values)
        # int32 boundaries are cast to int64.
        x_int64 = tf.Variable(0, dtype=tf.int64)
        boundaries, values = [1, 2, 3], [0.4, 0.5, 0.6, 0.7]
        decayed_lr = tf.train.piecewise_constant(x_int64, boundaries, values)
        self.evaluate(tf.global_variables_initializer())
        self.assertAllClose(self.evaluate(decayed_lr), 0.4, 1e-6)
        for value, expected in ((1, 0.4), (2, 0.5), (3, 0.6), (4, 0.7)):
            self.evaluate(x_int64.assign(value))
            self.assertAllClose(self.evaluate(decayed_lr), expected, 1e-6)


def _polynomial(test, step, end_lr, expected, lr=0.05, **kwargs):
    decayed_lr = tf.train.polynomial_decay(lr, step, 10, end_lr, **kwargs)
    test.assertAllClose(test.evaluate(decayed_lr), expected, 1e-6)


class LinearDecayTest(TestCase):

    def testHalfWay(self):
        _polynomial(self, 5, 0.0, 0.05 * 0.5)

    def testEnd(self):
        _polynomial(self, 10, 0.001, 0.001)

    def testHalfWayWithEnd(self):
        _polynomial(self, 5, 0.001, (0.05 + 0.001) * 0.5)

    def testBeyondEnd(self):
        _polynomial(self, 15, 0.001, 0.001)

    def testBeyondEndWithCycle(self):
        _polynomial(self, 15, 0.001, (0.05 - 0.001) * 0.25 + 0.001, cycle=True)


class SqrtDecayTest(TestCase):

    def testHalfWay(self):
        _polynomial(self, 5, 0.0, 0.05 * 0.5**0.5, power=0.5)

    def testEnd(self):
        _polynomial(self, 10, 0.001, 0.001, power=0.5)

    def testHalfWayWithEnd(self):
        _polynomial(self, 5, 0.001, (0.05 - 0.001) * 0.5**0.5 + 0.001, power=0.5)

    def testBeyondEnd(self):
        _polynomial(self, 15, 0.001, 0.001, power=0.5)

    def testBeyondEndWithCycle(self):
        _polynomial(self, 15, 0.001, (0.05 - 0.001) * 0.25**0.5 + 0.001, power=0.5, cycle=True)


class PolynomialDecayTest(TestCase):

    def testBeginWithCycle(self):
        lr = 0.001
        decayed_lr = tf.train.polynomial_decay(lr, 0, 10, cycle=True)
        self.assertAllClose(self.evaluate(decayed_lr), lr, 1e-6)


def _walk_steps(test, decay, initial_lr, k, decay_rate, expected_at, **kwargs):
    """Evaluates ``decay`` at steps 0..k of a variable step, comparing with ``expected_at(i)``."""
    step = tf.Variable(0)
    decayed_lr = decay(initial_lr, step, k, decay_rate, **kwargs)
    test.evaluate(tf.global_variables_initializer())
    for i in range(k + 1):
        test.assertAllClose(test.evaluate(decayed_lr), expected_at(i), 1e-6)
        test.evaluate(step.assign_add(1))


class ExponentialDecayTest(TestCase):

    def testDecay(self):
        _walk_steps(self, tf.train.natural_exp_decay, 0.1, 10, 0.96, lambda i: 0.1 * math.exp(-i / 10 * 0.96))

    def testStaircase(self):
        _walk_steps(self, tf.train.natural_exp_decay, 0.1, 10, 0.96, lambda i: 0.1 * math.exp(-0.96 * (i // 10)),
                    staircase=True)


class InverseDecayTest(TestCase):

    def testDecay(self):
        _walk_steps(self, tf.train.inverse_time_decay, 0.1, 10, 0.96, lambda i: 0.1 / (1 + i / 10 * 0.96))

    def testStaircase(self):
        _walk_steps(self, tf.train.inverse_time_decay, 0.1, 10, 0.96, lambda i: 0.1 / (1 + 0.96 * (i // 10)),
                    staircase=True)


def np_cosine_decay(step, decay_steps, alpha=0.0):
    step = min(step, decay_steps)
    completed_fraction = step / decay_steps
    decay = 0.5 * (1.0 + math.cos(math.pi * completed_fraction))
    return (1.0 - alpha) * decay + alpha


def np_cosine_decay_restarts(step, decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0):
    fac = 1.0
    while step >= decay_steps:
        step -= decay_steps
        decay_steps *= t_mul
        fac *= m_mul
    completed_fraction = step / decay_steps
    decay = fac * 0.5 * (1.0 + math.cos(math.pi * completed_fraction))
    return (1.0 - alpha) * decay + alpha


def np_linear_cosine_decay(step, decay_steps, alpha=0.0, beta=0.001, num_periods=0.5):
    step = min(step, decay_steps)
    linear_decayed = float(decay_steps - step) / decay_steps
    fraction = 2.0 * num_periods * step / float(decay_steps)
    cosine_decayed = 0.5 * (1.0 + math.cos(math.pi * fraction))
    return (alpha + linear_decayed) * cosine_decayed + beta


def _schedule(test, decay, reference, **kwargs):
    """``decay(1.0, step, 1000, **kwargs)`` against ``reference(step, 1000, **kwargs)`` at steps 0, 250, ... 1250."""
    for step in range(0, 1500, 250):
        decayed_lr = decay(1.0, step, 1000, **kwargs)
        test.assertAllClose(test.evaluate(decayed_lr), reference(step, 1000, **kwargs), 1e-6)


class CosineDecayTest(TestCase):

    def testDecay(self):
        _schedule(self, tf.train.cosine_decay, np_cosine_decay)

    def testAlpha(self):
        _schedule(self, tf.train.cosine_decay, np_cosine_decay, alpha=0.1)


class CosineDecayRestartsTest(TestCase):

    def testDecay(self):
        _schedule(self, tf.train.cosine_decay_restarts, np_cosine_decay_restarts)

    def testAlpha(self):
        _schedule(self, tf.train.cosine_decay_restarts, np_cosine_decay_restarts, alpha=0.1)

    def testMMul(self):
        _schedule(self, tf.train.cosine_decay_restarts, np_cosine_decay_restarts, m_mul=0.9)

    def testTMul(self):
        _schedule(self, tf.train.cosine_decay_restarts, np_cosine_decay_restarts, t_mul=1.0)


class LinearCosineDecayTest(TestCase):

    def testDefaultDecay(self):
        _schedule(self, tf.train.linear_cosine_decay, np_linear_cosine_decay)

    def testNonDefaultDecay(self):
        _schedule(self, tf.train.linear_cosine_decay, np_linear_cosine_decay, alpha=0.1, beta=1e-4, num_periods=5)


class NoisyLinearCosineDecayTest(TestCase):

    def testDefaultNoisyLinearCosine(self):
        for step in range(0, 1500, 250):
            # Noise makes the value random: TensorFlow's test only evaluates it.
            self.evaluate(tf.train.noisy_linear_cosine_decay(1.0, step, 1000))

    def testNonDefaultNoisyLinearCosine(self):
        for step in range(0, 1500, 250):
            self.evaluate(tf.train.noisy_linear_cosine_decay(1.0, step, 1000, initial_variance=0.5,
                                                             variance_decay=0.1, alpha=0.1, beta=1e-4,
                                                             num_periods=5))
