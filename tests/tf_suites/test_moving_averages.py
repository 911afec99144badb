"""TensorFlow's moving-averages suite (ExponentialMovingAverage, assign_moving_average), on both backends.

Port of tensorflow/python/training/moving_averages_test.py (tensorflow/tensorflow at 4bb4bfce6fdd): the
same test classes and methods, inputs and expected values, rewritten against ``harness.tf``.  The
original is Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

from tests.tf_suites.harness import TestCase, private, run_in_graph_and_eager_modes, skip_ours, tf


def assign_moving_average(*args, **kwargs):
    """moving_averages.assign_moving_average: public in neither backend's compat.v1, same module in both."""
    return private("tensorflow.python.training.moving_averages:assign_moving_average",
                   "graph.train.moving_averages:assign_moving_average")(*args, **kwargs)


def weighted_moving_average(*args, **kwargs):
    """moving_averages.weighted_moving_average (TensorFlow-private; ours has none)."""
    return private("tensorflow.python.training.moving_averages:weighted_moving_average", "")(*args, **kwargs)


WEIGHTED = "TF-private API (moving_averages.weighted_moving_average)"


class MovingAveragesTest(TestCase):

    def testAssignMovingAverageWithoutZeroDebias(self):
        with self.cached_session():
            var = tf.Variable([10.0, 11.0])
            val = tf.constant([1.0, 2.0], tf.float32)
            decay = 0.25
            assign = assign_moving_average(var, val, decay, zero_debias=False)
            tf.global_variables_initializer().run()
            self.assertAllClose([10.0, 11.0], self.evaluate(var))
            assign.op.run()
            self.assertAllClose([10.0 * 0.25 + 1.0 * (1.0 - 0.25), 11.0 * 0.25 + 2.0 * (1.0 - 0.25)],
                                self.evaluate(var))

    def testAssignMovingAverage(self):
        with self.cached_session():
            var = tf.Variable([0.0, 0.0])
            val = tf.constant([1.0, 2.0], tf.float32)
            decay = 0.25
            assign = assign_moving_average(var, val, decay)
            tf.global_variables_initializer().run()
            self.assertAllClose([0.0, 0.0], self.evaluate(var))
            assign.op.run()
            self.assertAllClose([1.0 * (1.0 - 0.25) / (1 - 0.25), 2.0 * (1.0 - 0.25) / (1 - 0.25)],
                                self.evaluate(var))

    def testAssignMovingAverageNewNamingMultipleCalls(self):
        with tf.variable_scope("scope1") as vs1:
            with tf.variable_scope("scope2"):
                var = tf.Variable(1.0, name="Var")
                assign_moving_average(var, 0.0, 0.99)
                assign_moving_average(var, 0.0, 0.99)
        expected_names = ["scope1/scope2/Var:0",
                          "scope1/scope2/scope1/scope2/Var/biased:0",
                          "scope1/scope2/scope1/scope2/Var/local_step:0",
                          "scope1/scope2/scope1/scope2/Var/biased_1:0",
                          "scope1/scope2/scope1/scope2/Var/local_step_1:0"]
        actual_names = [v.name for v in vs1.global_variables()]
        self.assertSetEqual(set(expected_names), set(actual_names))

    def testAssignMovingAverageNewNamingMultipleCallsWithReuse(self):
        with tf.variable_scope("scope1") as vs1:
            var = tf.get_variable("Var", shape=[])
            assign_moving_average(var, 0.0, 0.99)
            assign_moving_average(var, 0.0, 0.99)
        with tf.variable_scope(vs1, reuse=True):
            var = tf.get_variable("Var", shape=[])
            assign_moving_average(var, 0.0, 0.99)
            assign_moving_average(var, 0.0, 0.99)

    def _weighted(self, dtype, wrap=float):
        with self.cached_session() as sess:
            decay = 0.5
            weight = tf.placeholder(dtype, [])
            val = tf.placeholder(dtype, [])
            wma = weighted_moving_average(val, decay, weight)
            tf.global_variables_initializer().run()
            val_1, weight_1 = 3.0, 4.0
            wma_array = sess.run(wma, feed_dict={val: val_1, weight: weight_1})
            numerator_1 = val_1 * weight_1 * (1.0 - decay)
            denominator_1 = weight_1 * (1.0 - decay)
            self.assertAllClose(numerator_1 / denominator_1, wma_array)
            val_2, weight_2 = 11.0, 22.0
            wma_array = sess.run(wma, feed_dict={val: val_2, weight: weight_2})
            numerator_2 = numerator_1 * decay + val_2 * weight_2 * (1.0 - decay)
            denominator_2 = denominator_1 * decay + weight_2 * (1.0 - decay)
            self.assertAllClose(wrap(numerator_2 / denominator_2), wma_array)

    @skip_ours(WEIGHTED)
    def testWeightedMovingAverage(self):
        self._weighted(tf.float32)

    @skip_ours(WEIGHTED)
    def testWeightedMovingAverageBfloat16(self):
        # TensorFlow's test takes the bfloat16 scalar type from pywrap_tensorflow; it is the dtype's numpy type.
        self._weighted(tf.bfloat16, wrap=tf.bfloat16.as_numpy_dtype)


def _Repeat(value, dim):
    if dim == 1:
        return value
    return [value] * dim


class ExponentialMovingAverageTest(TestCase):

    def _CheckDecay(self, ema, actual_decay, dim):

        def _Scale(dk, steps):
            return 1 - dk**steps if ema._zero_debias else 1  # TensorFlow's test reads the private flag

        tens = _Repeat(10.0, dim)
        thirties = _Repeat(30.0, dim)
        var0 = tf.Variable(tens, name="v0")
        var1 = tf.Variable(thirties, name="v1")
        tf.global_variables_initializer().run()
        # tensor2 is a plain Tensor (a sum), not a Variable.
        tensor2 = var0 + var1
        update = ema.apply([var0, var1, tensor2])
        avg0 = ema.average(var0)
        avg1 = ema.average(var1)
        avg2 = ema.average(tensor2)
        self.assertItemsEqual([var0, var1], tf.moving_average_variables())
        self.assertFalse(avg0 in tf.trainable_variables())
        self.assertFalse(avg1 in tf.trainable_variables())
        self.assertFalse(avg2 in tf.trainable_variables())
        tf.global_variables_initializer().run()
        self.assertEqual("v0/ExponentialMovingAverage:0", avg0.name)
        self.assertEqual("v1/ExponentialMovingAverage:0", avg1.name)
        self.assertEqual("add/ExponentialMovingAverage:0", avg2.name)
        self.assertAllClose(tens, self.evaluate(var0))
        self.assertAllClose(thirties, self.evaluate(var1))
        self.assertAllClose(_Repeat(10.0 + 30.0, dim), self.evaluate(tensor2))
        # Averages of variables start at their values; of a Tensor, at zeros (its value is not known yet).
        self.assertAllClose(tens, self.evaluate(avg0))
        self.assertAllClose(thirties, self.evaluate(avg1))
        self.assertAllClose(_Repeat(0.0, dim), self.evaluate(avg2))
        update.run()
        dk = actual_decay
        self.assertAllClose(_Repeat(10.0 * dk + 10.0 * (1 - dk), dim), self.evaluate(avg0))
        self.assertAllClose(_Repeat(30.0 * dk + 30.0 * (1 - dk), dim), self.evaluate(avg1))
        self.assertAllClose(_Repeat(0.0 * dk + (10.0 + 30.0) * (1 - dk) / _Scale(dk, 1), dim), self.evaluate(avg2))
        update.run()
        self.assertAllClose(_Repeat((10.0 * dk + 10.0 * (1 - dk)) * dk + 10.0 * (1 - dk), dim), self.evaluate(avg0))
        self.assertAllClose(_Repeat((30.0 * dk + 30.0 * (1 - dk)) * dk + 30.0 * (1 - dk), dim), self.evaluate(avg1))
        self.assertAllClose(
            _Repeat(((0.0 * dk + (10.0 + 30.0) * (1 - dk)) * dk + (10.0 + 30.0) * (1 - dk)) / _Scale(dk, 2), dim),
            self.evaluate(avg2))

    def testAverageVariablesNoNumUpdates_Scalar(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25), actual_decay=0.25, dim=1)

    def testAverageVariablesNoNumUpdates_Scalar_Debias(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, zero_debias=True), actual_decay=0.25, dim=1)

    def testAverageVariablesNoNumUpdates_Vector(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25), actual_decay=0.25, dim=5)

    def testAverageVariablesNoNumUpdates_Vector_Debias(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, zero_debias=True), actual_decay=0.25, dim=5)

    # With num_updates 1 the decay applied is min(0.25, (1 + 1) / (10 + 1)) = 0.1818.
    def testAverageVariablesNumUpdates_Scalar(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, num_updates=1), actual_decay=0.181818, dim=1)

    def testAverageVariablesNumUpdates_Scalar_Debias(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, num_updates=1, zero_debias=True),
                             actual_decay=0.181818, dim=1)

    def testAverageVariablesNumUpdates_Vector(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, num_updates=1), actual_decay=0.181818, dim=5)

    def testAverageVariablesNumUpdates_Vector_Debias(self):
        with self.cached_session():
            self._CheckDecay(tf.train.ExponentialMovingAverage(0.25, num_updates=1, zero_debias=True),
                             actual_decay=0.181818, dim=5)

    def testAverageVariablesWithControlDeps(self):
        with self.cached_session():
            v0 = tf.Variable(0, name="v0")
            add_to_v0 = v0.assign_add(1)
            v1 = tf.Variable([10.0], name="v1")
            assign_to_v1 = v1.assign([20.0])
            ema = tf.train.ExponentialMovingAverage(0.25)
            with tf.control_dependencies([add_to_v0]):
                ema_op = ema.apply([v1])
            # The moving average of v1 has no control inputs.
            v1_avg = ema.average(v1)
            self.assertEqual([], v1_avg.initializer.control_inputs)
            self.assertEqual([], v1_avg.value().op.control_inputs)
            self.assertEqual([], v1_avg.value().op.control_inputs)
            # v1_avg initializes before v0.
            self.evaluate(v1_avg.initializer)
            self.evaluate(v0.initializer)
            self.assertEqual([10.0], self.evaluate(v1_avg))
            # ema_op adds to v0 as well as updating v1_avg.
            self.evaluate(assign_to_v1)
            self.evaluate(ema_op)
            self.assertEqual(1, self.evaluate(v0))
            self.assertEqual([17.5], self.evaluate(v1_avg))

    @run_in_graph_and_eager_modes
    def testBasicEager(self):
        v0 = tf.Variable(1.0)
        v1 = tf.Variable(2.0)
        ema = tf.train.ExponentialMovingAverage(0.25)
        op = ema.apply([v0, v1])
        self.evaluate(tf.global_variables_initializer())
        self.evaluate(op)
        self.evaluate(v0.assign(2.0))
        self.evaluate(v1.assign(4.0))
        self.evaluate(ema.apply([v0, v1]))
        self.assertAllEqual(self.evaluate(ema.average(v0)), 1.75)
        self.assertAllEqual(self.evaluate(ema.average(v1)), 3.5)

    def averageVariablesNamesHelper(self, zero_debias):
        with self.cached_session():
            v0 = tf.Variable(10.0, name="v0")
            v1 = tf.Variable(30.0, name="v1")
            v2 = tf.Variable(20.0, name="v2", trainable=False)  # a non-trainable variable
            tensor2 = v0 + v1
            ema = tf.train.ExponentialMovingAverage(0.25, zero_debias=zero_debias, name="foo")
            self.assertEqual("foo", ema.name)
            self.assertEqual("v0/foo", ema.average_name(v0))
            self.assertEqual("v1/foo", ema.average_name(v1))
            self.assertEqual("add/foo", ema.average_name(tensor2))
            ema.apply([v0, v1, tensor2])
            vars_to_restore = ema.variables_to_restore()
            expected_names = [ema.average_name(v0), ema.average_name(v1), ema.average_name(tensor2), v2.op.name]
            if zero_debias:
                expected_names += [ema.average_name(tensor2) + "/biased", ema.average_name(tensor2) + "/local_step"]
            self.assertEqual(sorted(expected_names), sorted(vars_to_restore.keys()))
            self.assertEqual(ema.average(v0).op.name, ema.average_name(v0))
            self.assertEqual(ema.average(v1).op.name, ema.average_name(v1))
            self.assertEqual(ema.average(tensor2).op.name, ema.average_name(tensor2))

    def testAverageVariablesNames(self):
        self.averageVariablesNamesHelper(zero_debias=True)

    def testAverageVariablesNamesNoDebias(self):
        self.averageVariablesNamesHelper(zero_debias=False)

    def averageVariablesNamesRespectScopeHelper(self, zero_debias):
        # TensorFlow issue #2740.
        with self.cached_session():
            with tf.variable_scope("scope1"):
                v0 = tf.Variable(10.0, name="v0")
                v1 = tf.Variable(30.0, name="v1")
                v2 = tf.Variable(20.0, name="v2", trainable=False)
                tensor2 = v0 + v1
            with tf.variable_scope("scope2"):
                ema = tf.train.ExponentialMovingAverage(0.25, zero_debias=zero_debias, name="foo")
                self.assertEqual("scope2/scope1/v0/foo", ema.average_name(v0))
                self.assertEqual("scope2/scope1/v1/foo", ema.average_name(v1))
                self.assertEqual("scope2/scope1/add/foo", ema.average_name(tensor2))
                ema.apply([v0, v1, tensor2])
                vars_to_restore = ema.variables_to_restore()
                expected_names = [ema.average_name(v0), ema.average_name(v1), ema.average_name(tensor2),
                                  v2.op.name]
                if zero_debias:
                    sc = "scope2/"
                    expected_names += [sc + ema.average_name(tensor2) + "/biased",
                                       sc + ema.average_name(tensor2) + "/local_step"]
                self.assertEqual(sorted(expected_names), sorted(vars_to_restore.keys()))
                self.assertEqual(ema.average(v0).op.name, ema.average_name(v0))
                self.assertEqual(ema.average(v1).op.name, ema.average_name(v1))
                self.assertEqual(ema.average(tensor2).op.name, ema.average_name(tensor2))

    def testAverageVariablesNamesRespectScope(self):
        self.averageVariablesNamesRespectScopeHelper(zero_debias=True)

    def testAverageVariablesNamesRespectScopeNoDebias(self):
        self.averageVariablesNamesRespectScopeHelper(zero_debias=False)

    def testSubsetAverageVariablesNames(self):
        with self.cached_session():
            v0 = tf.Variable(10.0, name="v0")
            v1 = tf.Variable(30.0, name="v1")
            v2 = tf.Variable(20.0, name="v2", trainable=False)
            tensor2 = v0 + v1
            ema = tf.train.ExponentialMovingAverage(0.25, name="foo_avg")
            self.assertEqual("v0/foo_avg", ema.average_name(v0))
            self.assertEqual("v1/foo_avg", ema.average_name(v1))
            self.assertEqual("add/foo_avg", ema.average_name(tensor2))
            vars_to_restore = ema.variables_to_restore([v0, tensor2])
            self.assertEqual(sorted(vars_to_restore.keys()),
                             sorted([ema.average_name(v0), ema.average_name(tensor2), v1.op.name, v2.op.name]))
            ema.apply([v0, v1, tensor2])
            self.assertEqual(ema.average(v0).op.name, ema.average_name(v0))
            self.assertEqual(ema.average(v1).op.name, ema.average_name(v1))
            self.assertEqual(ema.average(tensor2).op.name, ema.average_name(tensor2))

    @skip_ours("TF-private API (gen_state_ops.variable, the legacy Variable op)")
    def testAverageVariablesDeviceAssignment(self):
        with tf.device("/job:dev_v0"):
            v0 = tf.Variable(10.0, name="v0")
        with tf.device("/job:dev_v1"):
            v1 = private("tensorflow.python.ops.gen_state_ops:variable", "")(
                shape=[1], dtype=tf.float32, name="v1", container="", shared_name="")
            v1.set_shape([1])
        tensor2 = v0 + v1
        ema = tf.train.ExponentialMovingAverage(0.25, name="foo_avg")
        with tf.device("/job:default"):
            ema.apply([v0, v1, tensor2])
        self.assertDeviceEqual("/job:dev_v0", ema.average(v0).device)
        self.assertDeviceEqual("/job:dev_v1", ema.average(v1).device)
        # The colocation is kept as well.
        self.assertEqual([b"loc:@v1"], ema.average(v1).op.colocation_groups())
        self.assertDeviceEqual("/job:default", ema.average(tensor2).device)

    def _ExportAndImportGraph(self, graph):
        """The graph exported as a MetaGraphDef and imported into a new graph."""
        meta_graph = tf.train.export_meta_graph(graph=graph, collection_list=graph.get_all_collection_keys())
        graph_copy = tf.Graph()
        with graph_copy.as_default():
            tf.train.import_meta_graph(meta_graph)
        return graph_copy

    def testImportedGraphVariablesToRestore(self):
        g = tf.Graph()
        with g.as_default():
            tf.Variable(10.0, name="v")
        g_copy = self._ExportAndImportGraph(g)
        with g_copy.as_default():
            ema = tf.train.ExponentialMovingAverage(0.25, name="foo_avg")
            vars_to_restore = ema.variables_to_restore()
            # Importing makes new Python Variable objects for the same variable: it must be listed once.
            self.assertEqual(len(vars_to_restore), 1)
            self.assertTrue("v/foo_avg" in vars_to_restore)
