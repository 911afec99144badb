"""TensorFlow's MomentumOptimizer suite, on both backends.

Port of tensorflow/python/training/momentum_test.py (tensorflow/tensorflow at 06b9206d647e): the same
test methods, inputs and expected values, rewritten against ``harness.tf``.  The original is
Copyright 2015 The TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, excluded, run_deprecated_v1, tf

ALL_FLOATS = ("float16", "float32", "float64")

# Dist-belief momentum (learning rate 0.1, momentum 0.1): ten random gradients and the parameters after each.
DB_GRAD = [
    [0.00096264342, 0.17914793, 0.93945462, 0.41396621, 0.53037018, 0.93197989, 0.78648776, 0.50036013,
     0.55345792, 0.96722615],
    [0.17075552, 0.88821375, 0.20873757, 0.25236958, 0.57578111, 0.15312378, 0.5513742, 0.94687688,
     0.16012503, 0.22159521],
    [0.35077485, 0.47304362, 0.44412705, 0.44368884, 0.078527533, 0.81223965, 0.31168157, 0.43203235,
     0.16792089, 0.24644311],
    [0.9694621, 0.75035888, 0.28171822, 0.83813518, 0.53807181, 0.3728098, 0.81454384, 0.03848977,
     0.89759839, 0.93665648],
    [0.38578293, 0.8536852, 0.88722926, 0.66276771, 0.13678469, 0.94036359, 0.69107032, 0.81897682,
     0.5433259, 0.67860287],
    [0.27885768, 0.76100707, 0.24625534, 0.81354135, 0.18959245, 0.48038563, 0.84163809, 0.41172323,
     0.83259648, 0.44941229],
    [0.27233034, 0.056316052, 0.5039115, 0.24105175, 0.35697976, 0.75913221, 0.73577434, 0.16014607,
     0.57500273, 0.071136251],
    [0.58697265, 0.2494842, 0.08106143, 0.39954534, 0.15892942, 0.12683646, 0.74053431, 0.16033,
     0.66625422, 0.73515922],
    [0.8215279, 0.41994119, 0.95172721, 0.68000203, 0.79439718, 0.43384039, 0.55561525, 0.22567581,
     0.93331909, 0.29438227],
    [0.68297005, 0.67758518, 0.1748755, 0.13266537, 0.70697063, 0.055731893, 0.68593478, 0.50580865,
     0.12602448, 0.093537711],
]
DB_OUT = [
    [-9.6264346e-05, -0.017914793, -0.093945466, -0.041396622, -0.053037018, -0.093197994, -0.078648776,
     -0.050036013, -0.055345792, -0.096722618],
    [-0.017181443, -0.10852765, -0.12421377, -0.070773244, -0.11591884, -0.11783017, -0.14165108,
     -0.14972731, -0.076892875, -0.1285544],
    [-0.053967446, -0.1648933, -0.1716533, -0.1180798, -0.13005978, -0.20151734, -0.17911947, -0.20289968,
     -0.095839672, -0.15638189],
    [-0.15459226, -0.24556576, -0.20456907, -0.20662397, -0.18528105, -0.24716705, -0.2643207, -0.21206589,
     -0.18749419, -0.2528303],
    [-0.20323303, -0.33900154, -0.29658359, -0.28175515, -0.20448165, -0.34576839, -0.34194785, -0.29488021,
     -0.25099224, -0.33033544],
    [-0.23598288, -0.42444581, -0.33041057, -0.3706224, -0.22536094, -0.40366709, -0.43387437, -0.34433398,
     -0.34060168, -0.38302717],
    [-0.26649091, -0.43862185, -0.38418442, -0.40361428, -0.26314685, -0.48537019, -0.51664448, -0.36529395,
     -0.40706289, -0.39540997],
    [-0.32823896, -0.46498787, -0.39766794, -0.446868, -0.28281838, -0.50622416, -0.59897494, -0.38342294,
     -0.48033443, -0.47016418],
    [-0.41656655, -0.50961858, -0.49418902, -0.51919359, -0.36422527, -0.55169362, -0.6627695, -0.40780342,
     -0.58099347, -0.50707781],
    [-0.49369633, -0.58184016, -0.52132869, -0.5396927, -0.44306302, -0.56181377, -0.73774242, -0.46082234,
     -0.60366184, -0.52012295],
]


def update_nesterov_momentum_numpy(var, accum, g, lr, momentum):
    """Nesterov momentum as TensorFlow's test writes it in numpy."""
    var = var + accum * lr * momentum
    accum = accum * momentum + g
    var = var - lr * accum
    var = var - accum * lr * momentum
    return var, accum


class MomentumOptimizerTest(TestCase):

    def _check_two_steps(self, mom_opt, mom_update_1, mom_update_2, var0, var1):
        """Slots exist, then two steps (lr 2.0, momentum 0.9) from [1, 2] / [3, 4] with grads 0.1 / 0.01."""
        self.assertEqual(["momentum"], mom_opt.get_slot_names())
        slot0 = mom_opt.get_slot(var0, "momentum")
        self.assertEqual(slot0.get_shape(), var0.get_shape())
        slot1 = mom_opt.get_slot(var1, "momentum")
        self.assertEqual(slot1.get_shape(), var1.get_shape())
        self.assertFalse(slot0 in tf.trainable_variables())
        self.assertFalse(slot1 in tf.trainable_variables())
        self.assertAllClose([1.0, 2.0], self.evaluate(var0))
        self.assertAllClose([3.0, 4.0], self.evaluate(var1))
        # Step 1: the accumulators were 0, so a plain update v -= grad * learning_rate.
        self.evaluate(mom_update_1)
        self.assertAllCloseAccordingToType(np.array([0.1, 0.1]), self.evaluate(slot0))
        self.assertAllCloseAccordingToType(np.array([0.01, 0.01]), self.evaluate(slot1))
        self.assertAllCloseAccordingToType(np.array([1.0 - (0.1 * 2.0), 2.0 - (0.1 * 2.0)]), self.evaluate(var0))
        self.assertAllCloseAccordingToType(np.array([3.0 - (0.01 * 2.0), 4.0 - (0.01 * 2.0)]),
                                           self.evaluate(var1))
        # Step 2: the accumulators hold the previous update.
        self.evaluate(mom_update_2)
        self.assertAllCloseAccordingToType(np.array([(0.9 * 0.1 + 0.1), (0.9 * 0.1 + 0.1)]), self.evaluate(slot0))
        self.assertAllCloseAccordingToType(np.array([(0.9 * 0.01 + 0.01), (0.9 * 0.01 + 0.01)]),
                                           self.evaluate(slot1))
        self.assertAllCloseAccordingToType(
            np.array([1.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0), 2.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0)]),
            self.evaluate(var0))
        self.assertAllCloseAccordingToType(
            np.array([2.98 - ((0.9 * 0.01 + 0.01) * 2.0), 3.98 - ((0.9 * 0.01 + 0.01) * 2.0)]), self.evaluate(var1))

    def doTestBasic(self, use_resource=False):
        for i, name in enumerate(ALL_FLOATS):
            dtype = getattr(tf, name)
            if use_resource:
                var0 = tf.Variable([1.0, 2.0], dtype=dtype, name="var0_%d" % i, use_resource=True)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype, name="var1_%d" % i, use_resource=True)
            else:
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
            grads0 = tf.constant([0.1, 0.1], dtype=dtype)
            grads1 = tf.constant([0.01, 0.01], dtype=dtype)
            mom_opt = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9)
            mom_update = mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
            self.evaluate(tf.global_variables_initializer())
            self._check_two_steps(mom_opt, mom_update, mom_update, var0, var1)

    def testBasic(self):
        with self.cached_session():
            self.doTestBasic(use_resource=False)

    def testResourceBasic(self):
        self.doTestBasic(use_resource=True)

    testBasicCallableParams = excluded(
        "eager: runs under context.eager_mode()", "doTestBasic with resource variables and callable lr/momentum")

    def testVariablesAcrossGraphs(self):
        optimizer = tf.train.MomentumOptimizer(0.01, 0.5)
        for names in (("var0", "var1"), ("var2", "var3")):
            with tf.Graph().as_default():
                var_a = tf.Variable([1.0, 2.0], dtype=tf.float32, name=names[0], use_resource=True)
                var_b = tf.Variable([3.0, 4.0], dtype=tf.float32, name=names[1], use_resource=True)
                loss = tf.reduce_sum(var_a + var_b)
                optimizer.minimize(loss)
                optimizer_variables = optimizer.variables()
                self.assertStartsWith(optimizer_variables[0].name, names[0])
                self.assertStartsWith(optimizer_variables[1].name, names[1])
                self.assertEqual(2, len(optimizer_variables))

    @run_deprecated_v1
    def testNesterovMomentum(self):
        for name in ("float32", "float64"):
            dtype = getattr(tf, name)
            with self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                var0_np = np.array([1.0, 2.0], dtype=dtype.as_numpy_dtype)
                var1_np = np.array([3.0, 4.0], dtype=dtype.as_numpy_dtype)
                accum0_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                accum1_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                cost = 5 * var0 * var0 + 3 * var1
                global_step = tf.Variable(tf.zeros([], tf.int64), name="global_step")
                mom_op = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9, use_nesterov=True)
                opt_op = mom_op.minimize(cost, global_step, [var0, var1])
                tf.global_variables_initializer().run()
                for _ in range(1, 5):
                    opt_op.run()
                    var0_np, accum0_np = update_nesterov_momentum_numpy(var0_np, accum0_np, var0_np * 10, 2.0, 0.9)
                    var1_np, accum1_np = update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
                    self.assertAllClose(var0_np, self.evaluate(var0))
                    self.assertAllClose(var1_np, self.evaluate(var1))

    @run_deprecated_v1
    def testSparseNesterovMomentum(self):
        for name in ("float32", "float64"):
            dtype = getattr(tf, name)
            with self.cached_session():
                var0_np = np.array([1.0, 2.0], dtype=dtype.as_numpy_dtype)
                var1_np = np.array([3.0, 4.0], dtype=dtype.as_numpy_dtype)
                accum0_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                accum1_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                grads = []
                for _ in range(1, 5):
                    grads.append(var0_np * 10)
                    var0_np, accum0_np = update_nesterov_momentum_numpy(var0_np, accum0_np, var0_np * 10, 2.0, 0.9)
                    var1_np, accum1_np = update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
                var0_np = np.array([1.0, 2.0], dtype=dtype.as_numpy_dtype)
                var1_np = np.array([3.0, 4.0], dtype=dtype.as_numpy_dtype)
                accum0_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                accum1_np = np.array([0.0, 0.0], dtype=dtype.as_numpy_dtype)
                var0 = tf.Variable(var0_np)
                var1 = tf.Variable(var1_np)
                mom_op = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9, use_nesterov=True)
                x_feed = tf.placeholder(dtype)
                y_feed = tf.IndexedSlices(x_feed, tf.constant([0, 1]), tf.constant([2]))
                grads_and_vars = [(y_feed, var0), (tf.constant([3.0, 3.0], dtype=dtype), var1)]
                opt_update = mom_op.apply_gradients(grads_and_vars)
                tf.global_variables_initializer().run()
                for t in range(1, 5):
                    opt_update.run(feed_dict={x_feed: grads[t - 1]})
                    var0_np, accum0_np = update_nesterov_momentum_numpy(var0_np, accum0_np, var0_np * 10, 2.0, 0.9)
                    var1_np, accum1_np = update_nesterov_momentum_numpy(var1_np, accum1_np, 3, 2.0, 0.9)
                    self.assertAllClose(var0_np, self.evaluate(var0))
                    self.assertAllClose(var1_np, self.evaluate(var1))

    def testMinimizeSparseResourceVariable(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with tf.device("/cpu:0"):
                var0 = tf.Variable([[1.0, 2.0]], dtype=dtype, use_resource=True)

            def loss():
                x = tf.constant([[4.0], [5.0]], dtype=dtype)
                pred = tf.matmul(tf.nn.embedding_lookup([var0], [0]), x)
                return pred * pred

            opt = tf.train.MomentumOptimizer(learning_rate=1.0, momentum=0.0)
            sgd_op = opt.minimize(loss)
            self.evaluate(tf.global_variables_initializer())
            self.evaluate(sgd_op)
            self.assertAllCloseAccordingToType([[-111, -138]], self.evaluate(var0))

    def testMinimizeWith2DIndicesForEmbeddingLookup(self):
        with tf.device("/cpu:0"):
            var0 = tf.Variable(tf.ones([2, 2]), use_resource=True)

        def loss():
            return tf.reduce_sum(tf.nn.embedding_lookup(var0, [[1]]))

        opt = tf.train.MomentumOptimizer(learning_rate=1.0, momentum=0.0)
        sgd_op = opt.minimize(loss)
        self.evaluate(tf.global_variables_initializer())
        self.evaluate(sgd_op)
        self.assertAllCloseAccordingToType([[1, 1], [0, 0]], self.evaluate(var0))

    @run_deprecated_v1
    def testTensorLearningRateAndMomentum(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                mom_opt = tf.train.MomentumOptimizer(learning_rate=tf.constant(2.0), momentum=tf.constant(0.9))
                mom_update = mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self._check_two_steps(mom_opt, mom_update, mom_update, var0, var1)

    @run_deprecated_v1
    def testLikeDistBeliefMom01(self):
        with self.cached_session():
            num_samples = len(DB_GRAD)
            var0 = tf.Variable([0.0] * num_samples)
            grads0 = tf.constant([0.0] * num_samples)
            mom_opt = tf.train.MomentumOptimizer(learning_rate=0.1, momentum=0.1)
            mom_update = mom_opt.apply_gradients(zip([grads0], [var0]))
            tf.global_variables_initializer().run()
            for i in range(num_samples):
                mom_update.run(feed_dict={grads0: DB_GRAD[i]})
                self.assertAllClose(np.array(DB_OUT[i]), self.evaluate(var0))

    @run_deprecated_v1
    def testSparse(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                var0 = tf.Variable(tf.zeros([4, 2], dtype=dtype))
                var1 = tf.Variable(tf.constant(1.0, dtype, [4, 2]))
                grads0 = tf.IndexedSlices(tf.constant([[.1, .1]], dtype=dtype), tf.constant([1]), tf.constant([4, 2]))
                grads1 = tf.IndexedSlices(tf.constant([[.01, .01], [.01, .01]], dtype=dtype), tf.constant([2, 3]),
                                          tf.constant([4, 2]))
                mom_opt = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9)
                mom_update = mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                self.assertEqual(["momentum"], mom_opt.get_slot_names())
                slot0 = mom_opt.get_slot(var0, "momentum")
                self.assertEqual(slot0.get_shape(), var0.get_shape())
                slot1 = mom_opt.get_slot(var1, "momentum")
                self.assertEqual(slot1.get_shape(), var1.get_shape())
                self.assertAllClose([0, 0], self.evaluate(var0)[0])
                self.assertAllClose([0, 0], self.evaluate(var0)[1])
                self.assertAllClose([1, 1], self.evaluate(var1)[2])
                # Step 1: the accumulators are 0, so a plain update.
                mom_update.run()
                self.assertAllCloseAccordingToType(np.array([0, 0]), self.evaluate(slot0)[0])
                self.assertAllCloseAccordingToType(np.array([.1, .1]), self.evaluate(slot0)[1])
                self.assertAllCloseAccordingToType(np.array([.01, .01]), self.evaluate(slot1)[2])
                self.assertAllCloseAccordingToType(np.array([0, 0]), self.evaluate(var0)[0])
                self.assertAllCloseAccordingToType(np.array([-(0.1 * 2.0), -(0.1 * 2.0)]), self.evaluate(var0)[1])
                self.assertAllCloseAccordingToType(np.array([1.0 - (0.01 * 2.0), 1.0 - (0.01 * 2.0)]),
                                                   self.evaluate(var1)[2])
                # Step 2: the accumulators hold the previous update.
                mom_update.run()
                self.assertAllClose(np.array([0, 0]), self.evaluate(slot0)[0])
                self.assertAllCloseAccordingToType(np.array([(0.9 * 0.1 + 0.1), (0.9 * 0.1 + 0.1)]),
                                                   self.evaluate(slot0)[1])
                self.assertAllCloseAccordingToType(np.array([(0.9 * 0.01 + 0.01), (0.9 * 0.01 + 0.01)]),
                                                   self.evaluate(slot1)[2])
                self.assertAllClose(np.array([0, 0]), self.evaluate(var0)[0])
                self.assertAllCloseAccordingToType(
                    np.array([-(0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0), -(0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0)]),
                    self.evaluate(var0)[1])
                self.assertAllCloseAccordingToType(
                    np.array([0.98 - ((0.9 * 0.01 + 0.01) * 2.0), 0.98 - ((0.9 * 0.01 + 0.01) * 2.0)]),
                    self.evaluate(var1)[2])

    @run_deprecated_v1
    def testSharing(self):
        for name in ALL_FLOATS:
            dtype = getattr(tf, name)
            with self.cached_session():
                var0 = tf.Variable([1.0, 2.0], dtype=dtype)
                var1 = tf.Variable([3.0, 4.0], dtype=dtype)
                grads0 = tf.constant([0.1, 0.1], dtype=dtype)
                grads1 = tf.constant([0.01, 0.01], dtype=dtype)
                mom_opt = tf.train.MomentumOptimizer(learning_rate=2.0, momentum=0.9)
                mom_update1 = mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                mom_update2 = mom_opt.apply_gradients(zip([grads0, grads1], [var0, var1]))
                tf.global_variables_initializer().run()
                # The second update's step sees the accumulators the first one left.
                self._check_two_steps(mom_opt, mom_update1, mom_update2, var0, var1)
