"""TensorFlow's GradientDescentOptimizer suite, on both backends.

Port of tensorflow/python/training/gradient_descent_test.py (tensorflow/tensorflow at 0304934138cb):
the same test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, tf

FLOAT_DTYPES = ("float16", "float32", "float64")


class GradientDescentOptimizerTest(TestCase):

    def _check_one_step(self, var0, var1, update):
        self.assertAllCloseAccordingToType([1.0, 2.0], self.evaluate(var0))
        self.assertAllCloseAccordingToType([3.0, 4.0], self.evaluate(var1))
        update.run()
        self.assertAllCloseAccordingToType([1.0 - 3.0 * 0.1, 2.0 - 3.0 * 0.1], self.evaluate(var0))
        self.assertAllCloseAccordingToType([3.0 - 3.0 * 0.01, 4.0 - 3.0 * 0.01], self.evaluate(var1))

    def testBasic(self):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                optimizer = tf.train.GradientDescentOptimizer(3.0)
                sgd_op = optimizer.apply_gradients(zip([grads0, grads1], [var0, var1]))
                self.evaluate(tf.global_variables_initializer())
                self._check_one_step(var0, var1, sgd_op)
                self.assertEqual(0, len(optimizer.variables()))

    def _resource_step(self, learning_rate):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype, use_resource=True)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype, use_resource=True)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                sgd_op = tf.train.GradientDescentOptimizer(learning_rate).apply_gradients(
                    zip([grads0, grads1], [var0, var1]))
                tf.variables_initializer([var0, var1]).run()
                self._check_one_step(var0, var1, sgd_op)

    def testBasicResourceVariable(self):
        self._resource_step(3.0)

    def testBasicCallableParams(self):
        self._resource_step(lambda: 3.0)

    def _minimize(self, sparse):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)
                var1 = tf.Variable([3.0], dtype=dtype, use_resource=True)
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                if sparse:
                    pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                    pred += var1
                else:
                    pred = tf.matmul(var0, x) + var1
                loss = pred * pred
                sgd_op = tf.train.GradientDescentOptimizer(1.0).minimize(loss)
                self.evaluate(tf.global_variables_initializer())
                self.assertAllCloseAccordingToType([[1.0, 2.0]], self.evaluate(var0))
                self.assertAllCloseAccordingToType([3.0], self.evaluate(var1))
                sgd_op.run()
                np_pred = 1.0 * 4.0 + 2.0 * 5.0 + 3.0
                np_grad = 2 * np_pred
                self.assertAllCloseAccordingToType([[1.0 - np_grad * 4.0, 2.0 - np_grad * 5.0]],
                                                   self.evaluate(var0))
                self.assertAllCloseAccordingToType([3.0 - np_grad], self.evaluate(var1))

    def testMinimizeResourceVariable(self):
        self._minimize(sparse=False)

    def testMinimizeSparseResourceVariable(self):
        self._minimize(sparse=True)

    def testTensorLearningRate(self):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                lrate = tf.constant(3.0)
                sgd_op = tf.train.GradientDescentOptimizer(lrate).apply_gradients(zip([grads0, grads1], [var0, var1]))
                self.evaluate(tf.global_variables_initializer())
                self._check_one_step(var0, var1, sgd_op)

    def testGradWrtRef(self):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                opt = tf.train.GradientDescentOptimizer(3.0)
                values = [1.0, 3.0]
                vars_ = [tf.Variable([v], dtype=dtype) for v in values]
                grads_and_vars = opt.compute_gradients(vars_[0] + vars_[1], vars_)
                self.evaluate(tf.global_variables_initializer())
                for grad, _ in grads_and_vars:
                    self.assertAllCloseAccordingToType([1.0], self.evaluate(grad))

    def testWithGlobalStep(self):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                global_step = tf.Variable(0, trainable=False)
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                sgd_op = tf.train.GradientDescentOptimizer(3.0).apply_gradients(
                    zip([grads0, grads1], [var0, var1]), global_step=global_step)
                self.evaluate(tf.global_variables_initializer())
                self._check_one_step(var0, var1, sgd_op)
                self.assertAllCloseAccordingToType(1, self.evaluate(global_step))

    def testSparseBasic(self):
        for name in FLOAT_DTYPES:
            dtype = getattr(tf, name)
            with tf.Graph().as_default(), self.cached_session():
                var0 = tf.Variable([[1.0], [2.0]], dtype=dtype)
                var1 = tf.Variable([[3.0], [4.0]], dtype=dtype)
                grads0 = tf.IndexedSlices(tf.constant([0.1], shape=[1, 1], dtype=dtype), tf.constant([0]),
                                          tf.constant([2, 1]))
                grads1 = tf.IndexedSlices(tf.constant([0.01], shape=[1, 1], dtype=dtype), tf.constant([1]),
                                          tf.constant([2, 1]))
                sgd_op = tf.train.GradientDescentOptimizer(3.0).apply_gradients(zip([grads0, grads1], [var0, var1]))
                self.evaluate(tf.global_variables_initializer())
                self.assertAllCloseAccordingToType([[1.0], [2.0]], self.evaluate(var0))
                self.assertAllCloseAccordingToType([[3.0], [4.0]], self.evaluate(var1))
                sgd_op.run()
                self.assertAllCloseAccordingToType([[1.0 - 3.0 * 0.1], [2.0]], self.evaluate(var0))
                self.assertAllCloseAccordingToType([[3.0], [4.0 - 3.0 * 0.01]], self.evaluate(var1))
