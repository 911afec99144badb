"""TensorFlow's Optimizer base-class suite, on both backends.

Port of tensorflow/python/training/optimizer_test.py (tensorflow/tensorflow at 00f0938ae85c): the same
test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, run_deprecated_v1, run_in_graph_and_eager_modes, tf

ALL_FLOATS = ("float16", "float32", "float64")


def resource_variable(value, **kwargs):
    """TensorFlow's ``resource_variable_ops.ResourceVariable`` through the public compat.v1 spelling."""
    return tf.Variable(value, use_resource=True, **kwargs)


class OptimizerTest(TestCase):

    @run_in_graph_and_eager_modes
    def testBasic(self):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            var0 = resource_variable([1.0, 2.0], dtype=dtype, name='a_%d' % i)
            var1 = resource_variable([3.0, 4.0], dtype=dtype, name='b_%d' % i)

            def loss():
                return 5 * var0 + 3 * var1  # pylint: disable=cell-var-from-loop

            global_step = resource_variable(tf.zeros([], tf.int64), name='global_step_%d' % i)
            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            self.evaluate(tf.global_variables_initializer())
            self.assertAllClose([1.0, 2.0], self.evaluate(var0))
            self.assertAllClose([3.0, 4.0], self.evaluate(var1))
            opt_op = sgd_op.minimize(loss, global_step, [var0, var1])
            self.evaluate(opt_op)
            self.assertAllClose([-14., -13.], self.evaluate(var0))
            self.assertAllClose([-6., -5.], self.evaluate(var1))

    def _sgd_step(self, **minimize_kwargs):
        """One GradientDescent(3.0) step on cost 5 * var0 + 3 * var1; returns var0, var1 after it."""
        var0 = tf.Variable([1.0, 2.0], dtype=minimize_kwargs.get("dtype", tf.float32))
        var1 = tf.Variable([3.0, 4.0], dtype=minimize_kwargs.pop("dtype", tf.float32))
        cost = 5 * var0 + 3 * var1
        global_step = tf.Variable(tf.zeros([], tf.int64), name='global_step')
        sgd_op = tf.train.GradientDescentOptimizer(3.0)
        opt_op = sgd_op.minimize(cost, global_step, [var0, var1], **minimize_kwargs)
        self.evaluate(tf.global_variables_initializer())
        self.assertAllClose([1.0, 2.0], self.evaluate(var0))
        self.assertAllClose([3.0, 4.0], self.evaluate(var1))
        opt_op.run()
        return var0, var1

    @run_deprecated_v1
    def testAggregationMethod(self):
        for name in ALL_FLOATS:
            with self.cached_session():
                var0, var1 = self._sgd_step(
                    dtype=getattr(tf, name), aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)
                self.assertAllClose([-14., -13.], self.evaluate(var0))
                self.assertAllClose([-6., -5.], self.evaluate(var1))

    @run_deprecated_v1
    def testPrecomputedGradient(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                grad_loss = tf.constant([42, -42], dtype=dtype)
                var0, var1 = self._sgd_step(dtype=dtype, grad_loss=grad_loss)
                self.assertAllClose([1.0 - 3 * 5 * 42.0, 2.0 - 3 * 5 * (-42.0)], self.evaluate(var0))
                self.assertAllClose([3.0 - 3 * 3 * 42.0, 4.0 - 3 * 3 * (-42.0)], self.evaluate(var1))

    @run_in_graph_and_eager_modes
    def testNoVariables(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)

            def loss():
                var0 = resource_variable([1.0, 2.0], dtype=dtype, trainable=False, name='a')
                var1 = resource_variable([3.0, 4.0], dtype=dtype, trainable=False, name='b')
                return 5 * var0 + var1

            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            with self.assertRaisesRegex(ValueError, 'No.*variables'):
                sgd_op.minimize(loss)

    @run_in_graph_and_eager_modes
    def testNoGradients(self):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            var0 = resource_variable([1.0, 2.0], dtype=dtype, name='a%d' % i)
            var1 = resource_variable([3.0, 4.0], dtype=dtype, name='b%d' % i)

            def loss():
                return 5 * var0  # pylint: disable=cell-var-from-loop

            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            with self.assertRaisesRegex(ValueError, 'No gradients'):
                sgd_op.minimize(loss, var_list=[var1])  # var1 has no gradient

    @run_in_graph_and_eager_modes
    def testNoGradientsForAnyVariables_Minimize(self):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            var0 = resource_variable([1.0, 2.0], dtype=dtype, name='a_%d' % i)
            var1 = resource_variable([3.0, 4.0], dtype=dtype, name='b_%d' % i)

            def loss():
                return tf.constant(5.0)

            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            with self.assertRaisesRegex(ValueError, 'No gradients provided for any variable'):
                sgd_op.minimize(loss, var_list=[var0, var1])

    @run_in_graph_and_eager_modes
    def testNoGradientsForAnyVariables_ApplyGradients(self):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            var0 = resource_variable([1.0, 2.0], dtype=dtype, name='a_%d' % i)
            var1 = resource_variable([3.0, 4.0], dtype=dtype, name='b_%d' % i)
            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            with self.assertRaisesRegex(ValueError, 'No gradients provided for any variable'):
                sgd_op.apply_gradients([(None, var0), (None, var1)])

    @run_in_graph_and_eager_modes
    def testGradientsAsVariables(self):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            var0 = resource_variable([1.0, 2.0], dtype=dtype, name='a%d' % i)
            var1 = resource_variable([3.0, 4.0], dtype=dtype, name='b%d' % i)

            def loss():
                return 5 * var0 + 3 * var1  # pylint: disable=cell-var-from-loop

            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            grads_and_vars = sgd_op.compute_gradients(loss, [var0, var1])
            # The gradients, copied into variables, then applied.
            converted_grads = [resource_variable(tf.zeros([2], dtype), name='c_%d_%d' % (i, j))
                               for j, _ in enumerate(grads_and_vars)]
            convert_ops = [tf.assign(converted_grads[j], gv[0]) for j, gv in enumerate(grads_and_vars)]
            self.evaluate(tf.global_variables_initializer())
            self.evaluate(convert_ops)
            self.assertAllClose([1.0, 2.0], self.evaluate(var0))
            self.assertAllClose([3.0, 4.0], self.evaluate(var1))
            opt_op = sgd_op.apply_gradients(list(zip(converted_grads, [var0, var1])))
            self.evaluate(opt_op)
            self.assertAllClose([-14., -13.], self.evaluate(var0))
            self.assertAllClose([-6., -5.], self.evaluate(var1))

    @run_in_graph_and_eager_modes
    def testComputeGradientsWithTensors(self):
        x = tf.convert_to_tensor(1.0)

        def f():
            return x * x

        sgd_op = tf.train.GradientDescentOptimizer(3.0)
        grads_and_vars = sgd_op.compute_gradients(f, [x])
        self.assertEqual(1, len(grads_and_vars))
        grad, x_as_var = grads_and_vars[0]
        self.assertIs(x, x_as_var)
        self.assertEqual(2.0, self.evaluate(grad))
        with self.assertRaises(NotImplementedError):
            sgd_op.apply_gradients(grads_and_vars)

    @run_deprecated_v1
    def testTrainOp(self):
        with self.cached_session():
            var0 = tf.Variable([1.0, 2.0])
            var1 = tf.Variable([3.0, 4.0])
            cost = 5 * var0 + 3 * var1
            global_step = tf.Variable(tf.zeros([], tf.int64), name='global_step')
            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            opt_op = sgd_op.minimize(cost, global_step, [var0, var1])
            self.assertTrue(opt_op in tf.get_collection(tf.GraphKeys.TRAIN_OP))

    @run_deprecated_v1
    def testConstraint(self):
        constraint_01 = lambda x: tf.clip_by_value(x, -0.1, 0.)  # noqa: E731
        constraint_0 = lambda x: tf.clip_by_value(x, 0., 1.)  # noqa: E731
        with self.cached_session():
            var0 = tf.Variable([1.0, 2.0], constraint=constraint_01)
            var1 = tf.Variable([3.0, 4.0], constraint=constraint_0)
            cost = 5 * var0 + 3 * var1
            global_step = tf.Variable(tf.zeros([], tf.int64), name='global_step')
            sgd_op = tf.train.GradientDescentOptimizer(3.0)
            opt_op = sgd_op.minimize(cost, global_step, [var0, var1])
            self.evaluate(tf.global_variables_initializer())
            self.assertAllClose([1.0, 2.0], self.evaluate(var0))
            self.assertAllClose([3.0, 4.0], self.evaluate(var1))
            opt_op.run()
            self.assertAllClose([-0.1, -0.1], self.evaluate(var0))
            self.assertAllClose([0., 0.], self.evaluate(var1))
