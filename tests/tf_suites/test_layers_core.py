"""TensorFlow's tf.layers core suite (Dense, Dropout, Flatten), on both backends.

Port of tensorflow/python/layers/core_test.py (tensorflow/tensorflow at 03423a013af5): the same test methods,
inputs and expected values, rewritten against ``harness.tf`` (``core_layers.X`` is ``tf.layers.X``).  The
original reads the variable store's private dict (``_get_variable_dict_from_varstore``); here the same
name-to-variable dict comes from ``tf.global_variables()``.  The original is Copyright 2015 The TensorFlow
Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, run_in_graph_and_eager_modes, tf


def _variables_by_name():
    """{``scope/name``: variable} of the default graph, sorted by name (the original reads the store's dict)."""
    return dict(sorted((v.op.name, v) for v in tf.global_variables()))


class DenseTest(TestCase):

    @run_in_graph_and_eager_modes
    def testDenseProperties(self):
        dense = tf.layers.Dense(2, activation=tf.nn.relu, name="my_dense")
        self.assertEqual(dense.units, 2)
        self.assertEqual(dense.activation, tf.nn.relu)
        self.assertEqual(dense.kernel_regularizer, None)
        self.assertEqual(dense.bias_regularizer, None)
        self.assertEqual(dense.activity_regularizer, None)
        self.assertEqual(dense.use_bias, True)
        # Unnamed layers are numbered per graph.
        dense = tf.layers.Dense(2, activation=tf.nn.relu)
        dense.apply(tf.random_uniform((5, 2)))
        self.assertEqual(dense.name, "dense_1")
        dense = tf.layers.Dense(2, activation=tf.nn.relu)
        dense.apply(tf.random_uniform((5, 2)))
        self.assertEqual(dense.name, "dense_2")

    @run_deprecated_v1
    def testVariableInput(self):
        with self.cached_session():
            v = tf.get_variable("X", initializer=tf.zeros_initializer(), shape=(1, 1))
            x = tf.layers.Dense(1)(v)
            tf.global_variables_initializer().run()
            self.assertAllEqual(x.eval(), [[0.0]])

    @run_in_graph_and_eager_modes
    def testCall(self):
        dense = tf.layers.Dense(2, activation=tf.nn.relu, name="my_dense")
        outputs = dense(tf.random_uniform((5, 4), seed=1))
        self.assertListEqual([5, 2], outputs.get_shape().as_list())
        self.assertListEqual(dense.variables, [dense.kernel, dense.bias])
        self.assertListEqual(dense.trainable_variables, [dense.kernel, dense.bias])
        self.assertListEqual(dense.non_trainable_variables, [])
        self.assertEqual(len(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)), 2)
        self.assertEqual(dense.kernel.name, "my_dense/kernel:0")
        self.assertEqual(dense.bias.name, "my_dense/bias:0")

    def testNoEagerLeak(self):
        # In graph mode TensorFlow's leak check is inert: building the two layers must simply work.
        inputs = tf.random_uniform((5, 4), seed=1)
        tf.layers.Dense(5)(inputs)
        tf.layers.Dense(2, activation=tf.nn.relu, name="my_dense")(inputs)

    @run_in_graph_and_eager_modes
    def testCallTensorDot(self):
        dense = tf.layers.Dense(2, activation=tf.nn.relu, name="my_dense")
        outputs = dense(tf.random_uniform((5, 4, 3), seed=1))
        self.assertListEqual([5, 4, 2], outputs.get_shape().as_list())

    @run_in_graph_and_eager_modes
    def testNoBias(self):
        dense = tf.layers.Dense(2, use_bias=False, name="my_dense")
        dense(tf.random_uniform((5, 2), seed=1))
        self.assertListEqual(dense.variables, [dense.kernel])
        self.assertListEqual(dense.trainable_variables, [dense.kernel])
        self.assertListEqual(dense.non_trainable_variables, [])
        self.assertEqual(len(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)), 1)
        self.assertEqual(dense.kernel.name, "my_dense/kernel:0")
        self.assertEqual(dense.bias, None)

    @run_in_graph_and_eager_modes
    def testNonTrainable(self):
        dense = tf.layers.Dense(2, trainable=False, name="my_dense")
        dense(tf.random_uniform((5, 2), seed=1))
        self.assertListEqual(dense.variables, [dense.kernel, dense.bias])
        self.assertListEqual(dense.non_trainable_variables, [dense.kernel, dense.bias])
        self.assertListEqual(dense.trainable_variables, [])
        self.assertEqual(len(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)), 0)

    @run_in_graph_and_eager_modes
    def testOutputShape(self):
        dense = tf.layers.Dense(7, activation=tf.nn.relu, name="my_dense")
        for shape, expected in (((5, 3), [5, 7]), ((5, 2, 3), [5, 2, 7]), ((1, 2, 4, 3), [1, 2, 4, 7])):
            outputs = dense.apply(tf.random_uniform(shape, seed=1))
            self.assertEqual(outputs.get_shape().as_list(), expected)

    @run_deprecated_v1
    def testCallOnPlaceHolder(self):
        for shape in (None, [None, None], [None, None, None]):  # the last dimension unknown: no kernel shape
            inputs = tf.placeholder(dtype=tf.float32, shape=shape)
            with self.assertRaises(ValueError):
                tf.layers.Dense(4, name="my_dense")(inputs)
        tf.layers.Dense(4, name="my_dense")(tf.placeholder(dtype=tf.float32, shape=[None, 3]))
        tf.layers.Dense(4, name="my_dense")(tf.placeholder(dtype=tf.float32, shape=[None, None, 3]))

    @run_in_graph_and_eager_modes
    def testActivation(self):
        outputs = tf.layers.Dense(2, activation=tf.nn.relu, name="dense1")(tf.random_uniform((5, 3), seed=1))
        self.assertEqual(outputs.op.name, "dense1/Relu")
        outputs = tf.layers.Dense(2, name="dense2")(tf.random_uniform((5, 3), seed=1))
        self.assertEqual(outputs.op.name, "dense2/BiasAdd")

    @run_deprecated_v1
    def testActivityRegularizer(self):
        regularizer = lambda x: tf.reduce_sum(x) * 1e-3  # noqa: E731
        dense = tf.layers.Dense(2, name="my_dense", activity_regularizer=regularizer)
        dense(tf.random_uniform((5, 3), seed=1))
        loss_keys = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        self.assertEqual(len(loss_keys), 1)
        self.assertListEqual(dense.losses, loss_keys)

    def _check_weight_regularizer(self, argument):
        regularizer = lambda x: tf.reduce_sum(x) * 1e-3  # noqa: E731
        dense = tf.layers.Dense(2, name="my_dense", **{argument: regularizer})
        dense(tf.random_uniform((5, 3), seed=1))
        loss_keys = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
        self.assertEqual(len(loss_keys), 1)
        self.evaluate([v.initializer for v in dense.variables])
        self.assertAllEqual(self.evaluate(dense.losses), self.evaluate(loss_keys))

    @run_deprecated_v1
    def testKernelRegularizer(self):
        self._check_weight_regularizer("kernel_regularizer")

    @run_deprecated_v1
    def testKernelRegularizerWithReuse(self):
        regularizer = lambda x: tf.reduce_sum(x) * 1e-3  # noqa: E731
        inputs = tf.random_uniform((5, 3), seed=1)
        tf.layers.dense(inputs, 2, name="my_dense", kernel_regularizer=regularizer)
        self.assertEqual(len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)), 1)
        tf.layers.dense(inputs, 2, name="my_dense", kernel_regularizer=regularizer, reuse=True)
        self.assertEqual(len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)), 1)

    @run_deprecated_v1
    def testBiasRegularizer(self):
        self._check_weight_regularizer("bias_regularizer")

    @run_deprecated_v1
    def testFunctionalDense(self):
        with self.cached_session():
            outputs = tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2, activation=tf.nn.relu, name="my_dense")
            self.assertEqual(len(tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)), 2)
            self.assertEqual(outputs.op.name, "my_dense/Relu")

    @run_deprecated_v1
    def testFunctionalDenseTwice(self):
        inputs = tf.random_uniform((5, 3), seed=1)
        tf.layers.dense(inputs, 2)
        vars1 = _variables_by_name().values()
        tf.layers.dense(inputs, 2)
        vars2 = _variables_by_name().values()
        self.assertEqual(len(vars1), 2)
        self.assertEqual(len(vars2), 4)

    def testFunctionalDenseTwiceReuse(self):
        with self.cached_session():
            inputs = tf.random_uniform((5, 3), seed=1)
            tf.layers.dense(inputs, 2, name="my_dense")
            vars1 = tf.trainable_variables()
            tf.layers.dense(inputs, 2, name="my_dense", reuse=True)
            self.assertEqual(vars1, tf.trainable_variables())

    def testFunctionalDenseTwiceReuseFromScope(self):
        with self.cached_session():
            with tf.variable_scope("scope"):
                inputs = tf.random_uniform((5, 3), seed=1)
                tf.layers.dense(inputs, 2, name="my_dense")
                vars1 = tf.trainable_variables()
            with tf.variable_scope("scope", reuse=True):
                tf.layers.dense(inputs, 2, name="my_dense")
                vars2 = tf.trainable_variables()
            self.assertEqual(vars1, vars2)

    @run_deprecated_v1
    def testFunctionalDenseInitializerFromScope(self):
        with tf.variable_scope("scope", initializer=tf.ones_initializer()), self.cached_session():
            tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2)
            tf.global_variables_initializer().run()
            weights = _variables_by_name()
            self.assertEqual(len(weights), 2)
            # The kernel takes the scope's initializer; the bias keeps its own (zeros).
            self.assertAllClose(weights["scope/dense/kernel"].read_value().eval(), np.ones((3, 2)))
            self.assertAllClose(weights["scope/dense/bias"].read_value().eval(), np.zeros(2))

    testEagerExecution = excluded("eager: EagerVariableStore under context.eager_mode()",
                                  "tf.layers.dense reuses its variables through an EagerVariableStore")

    def testFunctionalDenseWithCustomGetter(self):
        called = [0]

        def custom_getter(getter, *args, **kwargs):
            called[0] += 1
            return getter(*args, **kwargs)

        with tf.variable_scope("test", custom_getter=custom_getter):
            tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2)
        self.assertEqual(called[0], 2)

    @run_deprecated_v1
    def testFunctionalDenseInScope(self):
        with self.cached_session():
            with tf.variable_scope("test"):
                tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2, name="my_dense")
                self.assertEqual(_variables_by_name()["test/my_dense/kernel"].name, "test/my_dense/kernel:0")
            with tf.variable_scope("test1") as scope:
                tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2, name=scope)
                self.assertEqual(_variables_by_name()["test1/kernel"].name, "test1/kernel:0")
            with tf.variable_scope("test2"):
                tf.layers.dense(tf.random_uniform((5, 3), seed=1), 2)
                self.assertEqual(_variables_by_name()["test2/dense/kernel"].name, "test2/dense/kernel:0")

    @run_in_graph_and_eager_modes
    def testComputeOutputShape(self):
        dense = tf.layers.Dense(2, activation=tf.nn.relu, name="dense1")
        ts = tf.TensorShape
        for shape in (ts(None), ts([]), ts([1])):
            with self.assertRaises(ValueError):
                dense.compute_output_shape(shape)
        self.assertEqual([None, 2], dense.compute_output_shape((None, 3)).as_list())
        self.assertEqual([None, 2], dense.compute_output_shape(ts([None, 3])).as_list())
        self.assertEqual([None, 4, 2], dense.compute_output_shape(ts([None, 4, 3])).as_list())

    @run_in_graph_and_eager_modes
    def testConstraints(self):
        k_constraint = lambda x: x / tf.reduce_sum(x)  # noqa: E731
        b_constraint = lambda x: x / tf.reduce_max(x)  # noqa: E731
        dense = tf.layers.Dense(2, kernel_constraint=k_constraint, bias_constraint=b_constraint)
        dense(tf.random_uniform((5, 3), seed=1))
        self.assertEqual(dense.kernel_constraint, k_constraint)
        self.assertEqual(dense.bias_constraint, b_constraint)


class DropoutTest(TestCase):

    @run_in_graph_and_eager_modes
    def testDropoutProperties(self):
        dp = tf.layers.Dropout(0.5, name="dropout")
        self.assertEqual(dp.rate, 0.5)
        self.assertEqual(dp.noise_shape, None)
        dp.apply(tf.ones(()))
        self.assertEqual(dp.name, "dropout")

    @run_in_graph_and_eager_modes
    def testBooleanLearningPhase(self):
        dp = tf.layers.Dropout(0.5)
        inputs = tf.ones((5, 3))
        dropped = dp.apply(inputs, training=True)
        self.evaluate(tf.global_variables_initializer())
        self.assertAlmostEqual(0., self.evaluate(dropped).min())
        dropped = dp.apply(inputs, training=False)
        self.assertAllClose(np.ones((5, 3)), self.evaluate(dropped))

    @run_deprecated_v1
    def testDynamicLearningPhase(self):
        with self.cached_session() as sess:
            dp = tf.layers.Dropout(0.5, seed=1)
            training = tf.placeholder(dtype="bool")
            dropped = dp.apply(tf.ones((5, 5)), training=training)
            self.evaluate(tf.global_variables_initializer())
            self.assertAlmostEqual(0., sess.run(dropped, feed_dict={training: True}).min())
            self.assertAllClose(np.ones((5, 5)), sess.run(dropped, feed_dict={training: False}))

    def _check_noise_shape(self, noise_shape):
        dp = tf.layers.Dropout(0.5, noise_shape=noise_shape, seed=1)
        dropped = dp.apply(tf.ones((5, 3, 2)), training=True)
        self.evaluate(tf.global_variables_initializer())
        np_output = self.evaluate(dropped)
        self.assertAlmostEqual(0., np_output.min())
        self.assertAllClose(np_output[:, 0, :], np_output[:, 1, :])

    @run_in_graph_and_eager_modes
    def testDynamicNoiseShape(self):
        self._check_noise_shape([None, 1, None])

    def testCustomNoiseShape(self):
        self._check_noise_shape([5, 1, 2])

    @run_deprecated_v1
    def testFunctionalDropout(self):
        with self.cached_session():
            inputs = tf.ones((5, 5))
            dropped = tf.layers.dropout(inputs, 0.5, training=True, seed=1)
            tf.global_variables_initializer().run()
            self.assertAlmostEqual(0., self.evaluate(dropped).min())
            dropped = tf.layers.dropout(inputs, 0.5, training=False, seed=1)
            self.assertAllClose(np.ones((5, 5)), self.evaluate(dropped))

    @run_deprecated_v1
    def testDynamicRate(self):
        with self.cached_session() as sess:
            rate = tf.placeholder(dtype="float32", name="rate")
            dropped = tf.layers.Dropout(rate, name="dropout").apply(tf.ones((5, 5)), training=True)
            self.evaluate(tf.global_variables_initializer())
            self.assertAlmostEqual(0., sess.run(dropped, feed_dict={rate: 0.5}).min())
            self.assertAllClose(np.ones((5, 5)), sess.run(dropped, feed_dict={rate: 0.0}))


class FlattenTest(TestCase):

    def testCreateFlatten(self):
        with self.cached_session() as sess:
            x = tf.placeholder(shape=(None, 2, 3), dtype="float32")
            y = tf.layers.Flatten()(x)
            self.assertEqual(list(sess.run(y, feed_dict={x: np.zeros((3, 2, 3))}).shape), [3, 6])
            self.assertEqual(y.get_shape().as_list(), [None, 6])
            x = tf.placeholder(shape=(1, 2, 3, 2), dtype="float32")
            y = tf.layers.Flatten()(x)
            self.assertEqual(list(sess.run(y, feed_dict={x: np.zeros((1, 2, 3, 2))}).shape), [1, 12])
            self.assertEqual(y.get_shape().as_list(), [1, 12])

    def testComputeShape(self):
        self.assertEqual(tf.layers.Flatten().compute_output_shape((1, 2, 3, 2)).as_list(), [1, 12])
        self.assertEqual(tf.layers.Flatten().compute_output_shape((None, 3, 2)).as_list(), [None, 6])
        self.assertEqual(tf.layers.Flatten().compute_output_shape((None, 3, None)).as_list(), [None, None])

    def _check_data_format(self, channels_last_shape, to_channels_first):
        np_input_channels_last = np.arange(np.prod(channels_last_shape), dtype="float32").reshape(channels_last_shape)
        np_input_channels_first = np.transpose(np_input_channels_last, to_channels_first)
        with self.test_session() as sess:
            x = tf.placeholder(shape=np_input_channels_last.shape, dtype="float32")
            y = tf.layers.Flatten(data_format="channels_last")(x)
            np_output_cl = sess.run(y, feed_dict={x: np_input_channels_last})
            x = tf.placeholder(shape=np_input_channels_first.shape, dtype="float32")
            y = tf.layers.Flatten(data_format="channels_first")(x)
            np_output_cf = sess.run(y, feed_dict={x: np_input_channels_first})
            self.assertAllEqual(np_output_cl, np_output_cf)

    def testDataFormat5d(self):
        self._check_data_format([1, 5, 4, 3, 2], [0, 4, 1, 2, 3])

    def testDataFormat4d(self):
        self._check_data_format([1, 4, 3, 2], [0, 3, 1, 2])

    def testFunctionalFlatten(self):
        x = tf.placeholder(shape=(None, 2, 3), dtype="float32")
        self.assertEqual(tf.layers.flatten(x, name="flatten").get_shape().as_list(), [None, 6])

    def testFlatten0D(self):
        x = tf.placeholder(shape=(None,), dtype="float32")
        y = tf.layers.Flatten()(x)
        with self.cached_session() as sess:
            np_output = sess.run(y, feed_dict={x: np.zeros((5,))})
        self.assertEqual(list(np_output.shape), [5, 1])
        self.assertEqual(y.shape.as_list(), [None, 1])

    def testFlattenUnknownAxes(self):
        with self.cached_session() as sess:
            for shape, value in (((5, None, None), np.zeros((5, 2, 3))), ((5, None, 2), np.zeros((5, 3, 2)))):
                x = tf.placeholder(shape=shape, dtype="float32")
                y = tf.layers.Flatten()(x)
                self.assertEqual(list(sess.run(y, feed_dict={x: value}).shape), [5, 6])
                self.assertEqual(y.get_shape().as_list(), [5, None])
