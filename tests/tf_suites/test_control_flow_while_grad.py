"""TensorFlow's while-loop gradient tests (v1 control flow, graph mode), on both backends.

Port of tensorflow/python/kernel_tests/control_flow_ops_py_test.py (tensorflow/tensorflow at ee8be6ee6c0a),
its while-loop gradient part: ``testWhileStack_1`` and the ``*WhileGrad*`` / ``*WhileCondGrad*`` /
``*StopGrad*`` methods of ``ControlFlowTest``, with their inputs, steps and expected values, rewritten
against ``harness.tf``; ``use_gpu``/``p_iters`` helper variants run on the CPU.  The rest of that file
(cond, case, group, while forward) is not part of this port.  The original is Copyright 2015 The
TensorFlow Authors, licensed under the Apache License, Version 2.0.
"""

import numpy as np

from tests.tf_suites.harness import TestCase, private, skip_both, tf



def _stack_op(name: str):
    return private(f"tensorflow.python.ops.gen_data_flow_ops:{name}", f"graph.ops.stack_ops:{name}")


class ControlFlowTest(TestCase):

    def testWhileStack_1(self):
        with self.cached_session():
            s = _stack_op("stack_v2")(-1, tf.int32, stack_name="foo")
            i = tf.constant(0)

            def c(i):
                return tf.less(i, 10)

            def b(i):
                ni = tf.add(i, 1)
                return tf.tuple([ni], control_inputs=[_stack_op("stack_push_v2")(s, i)])[0]

            r = tf.while_loop(c, b, [i], parallel_iterations=1)
            x = tf.constant(0)

            def c1(i, _):
                return tf.greater(i, 0)

            def b1(i, x):
                return [tf.subtract(i, 1), x + _stack_op("stack_pop_v2")(s, tf.int32)]

            _, rx = tf.while_loop(c1, b1, [r, x], [r.get_shape(), tf.TensorShape(None)], parallel_iterations=1)
            self.assertEqual(45, self.evaluate(rx))

    def _testWhileGrad_ColocateGradients(self, colocate):
        gpu_dev_name = "/device:GPU:0"
        graph = tf.Graph()
        with graph.as_default():
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)

            def b(x):
                with tf.device(gpu_dev_name):
                    return tf.square(x)

            loop = tf.while_loop(c, b, [v], parallel_iterations=1)
            r = tf.gradients(loop, v, colocate_gradients_with_ops=colocate)[0]
        r_ops = graph.get_operations()
        self.assertTrue(any("Square" in op.name for op in r_ops))
        for op in r_ops:
            if not colocate and op.name.endswith("Square"):
                self.assertTrue(gpu_dev_name in op.device)  # only the forward Square is on the GPU
            elif colocate and "Square" in op.name:
                self.assertTrue(gpu_dev_name in op.device)  # Square and Square_grad both
            else:
                self.assertFalse(gpu_dev_name in op.device)
        # (the original also runs r, which needs the GPU its ops are placed on)

    def testWhileGrad_ColocateGradients(self):
        self._testWhileGrad_ColocateGradients(colocate=False)
        self._testWhileGrad_ColocateGradients(colocate=True)

    def testWhileGrad_Square(self):
        with self.cached_session():
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            r = tf.while_loop(c, tf.square, [v], parallel_iterations=1)
            r = tf.cond(tf.less(1, 2), lambda: r, lambda: v)
            r = tf.gradients(r, v)[0]
            self.assertAllClose(1024.0, self.evaluate(r))

    def testWhileGrad_Shape(self):
        with self.cached_session() as sess:
            x = tf.placeholder(tf.float32, shape=[None])
            v = tf.constant([2.0], name="v")
            n = tf.constant(0, name="n")
            c = lambda i, v: tf.less(i, 5)
            b = lambda i, v: [i + 1, tf.multiply(x, v)]
            r = tf.while_loop(c, b, [n, v], [n.get_shape(), tf.TensorShape(None)], parallel_iterations=1)
            r = tf.gradients(r[1], x)[0]
            self.assertEqual([None], r.get_shape().as_list())
            self.assertAllClose([810.0, 2560.0], sess.run(r, feed_dict={x: [3.0, 4.0]}))

    def testWhileGrad_BaseShape(self):
        with self.cached_session() as sess:
            x = tf.placeholder(tf.float32, [None])
            v0 = tf.constant([2.0, 2.0], name="v")
            c = lambda v: tf.constant(False)
            b = lambda v: tf.multiply(v, x)
            r = tf.while_loop(c, b, [v0])
            y = tf.square(x)
            r = tf.gradients([r, y], x)[0]
            self.assertAllClose([2.0, 4.0], sess.run(r, feed_dict={x: [1.0, 2.0]}))

    def testWhileGrad_MultipleUses(self):
        with self.cached_session():
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            r = tf.while_loop(c, tf.square, [v], parallel_iterations=1)
            r = tf.multiply(r, r)
            r = tf.gradients(r, v)[0]
            self.assertEqual(524288.0, self.evaluate(r))

    def testWhileGrad_LoopAdd(self):
        with self.cached_session():
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            r = tf.while_loop(c, tf.square, [v], parallel_iterations=1)
            r = tf.add(r, r)
            r = tf.gradients(r, v)[0]
            self.assertAllClose(2048.0, self.evaluate(r))

    def _testWhileGrad_Mul(self, p_iters):
        with tf.Graph().as_default(), self.cached_session() as sess:
            a = tf.constant(3.0, name="a")
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            b = lambda v: tf.multiply(v, a)
            r = tf.while_loop(c, b, [v], parallel_iterations=p_iters)
            grad_a, grad_v = tf.gradients(r, [a, v])
            grad_a_val, grad_v_val = sess.run([grad_a, grad_v])
            self.assertAllClose(216.0, grad_a_val)
            self.assertAllClose(81.0, grad_v_val)

    def testWhileGrad_Mul(self):
        self._testWhileGrad_Mul(p_iters=1)
        self._testWhileGrad_Mul(p_iters=10)

    def testNestedWhileCondWhileGrad(self):
        with self.cached_session():
            v = tf.constant(1.0)

            def inner_loop(s):
                z = tf.constant(0)
                c = lambda i, x: tf.less(i, 4)
                b = lambda i, x: [tf.add(i, 1), tf.multiply(x, 2.0)]
                return tf.while_loop(c, b, [z, s])

            c = lambda x: tf.less(x, 128.0)

            def b(x):
                return tf.cond(tf.constant(True), lambda: tf.square(inner_loop(x)[1]), lambda: tf.multiply(x, 2.0))

            r = tf.while_loop(c, b, [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(512.0, self.evaluate(r))

    def testWhileGrad_Variable(self):
        with self.cached_session():
            a = tf.Variable(3.0)
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            b = lambda v: tf.multiply(v, a)
            r = tf.while_loop(c, b, [v], parallel_iterations=1)
            r = tf.gradients(r, a)
            self.evaluate(tf.global_variables_initializer())
            self.assertAllClose(216.0, self.evaluate(r[0]))

    def testWhileGradInCond(self):
        with self.cached_session() as sess:
            n = tf.convert_to_tensor(1.0, name="n")
            x = tf.placeholder(tf.float32, shape=None)
            c = lambda n: tf.less(n, 10.0)
            b = lambda n: tf.add(n, x)

            def fn1():
                r = tf.while_loop(c, b, [n], [tf.TensorShape(None)])
                return tf.gradients(r, x)

            r = tf.cond(tf.less(1, 2), fn1, lambda: x)
            self.assertAllClose(9.0, sess.run(r, feed_dict={x: 1.0}))

    def testWhileGradInWhile(self):
        with self.cached_session() as sess:
            n = tf.convert_to_tensor(1.0, name="n")
            x = tf.placeholder(tf.float32, shape=None)
            c = lambda n: tf.less(n, 10.0)
            b = lambda n: tf.add(n, x)

            def b1(n):
                r = tf.while_loop(c, b, [n], [tf.TensorShape(None)])
                return tf.gradients(r, x)

            r = tf.while_loop(lambda n: n < 6.0, b1, [n], [tf.TensorShape(None)])
            self.assertAllClose(9.0, sess.run(r, feed_dict={x: 1.0}))

    def testCondGradInNestedWhiles(self):
        def outer_body(i, x):
            _, x = tf.while_loop(lambda j, x: j < 3, inner_body, [0, 0.0])
            return i + 1, x

        def inner_body(j, x):
            y = tf.cond(tf.less(x, 1), lambda: 2 * x, lambda: x)
            return j + 1, tf.gradients(y, x)[0]

        i, x = tf.while_loop(lambda i, x: i < 3, outer_body, [0, 0.0])
        with self.cached_session() as sess:
            i_val, x_val = sess.run([i, x])
            self.assertEqual(i_val, 3)
            self.assertAllClose(x_val, 1.0)

    def testWhileGrad_ys_xs(self):
        with self.cached_session():
            x = tf.constant(3.0, name="x")
            y = tf.constant(2.0, name="y")
            c = lambda x, y: tf.less(x, 100.0)

            def b(x, y):
                y1 = tf.add(x, y)
                x1 = tf.multiply(x, y1)
                return x1, y1

            rx, ry = tf.while_loop(c, b, [x, y], parallel_iterations=1)
            r = tf.gradients([rx, ry], x)
            self.assertAllClose(304.0, self.evaluate(r[0]))
            r = tf.gradients([rx, ry], y)
            self.assertAllClose(124.0, self.evaluate(r[0]))
            r = tf.gradients([rx], x)
            self.assertAllClose(295.0, self.evaluate(r[0]))
            r = tf.gradients([rx], y)
            self.assertAllClose(120.0, self.evaluate(r[0]))

    def testWhileGrad_Dependency(self):
        with self.cached_session():
            i = tf.constant(0, name="i")
            x = tf.constant(2.0, name="x")
            c = lambda i, x: tf.less(i, 10)

            def b(i, x):
                return tf.add(i, 1), tf.multiply(x, 2.0)

            ri, rx = tf.while_loop(c, b, [i, x], parallel_iterations=1)
            r = tf.gradients([ri, rx], x)
            self.assertAllClose(1024.0, self.evaluate(r[0]))
            r = tf.gradients([rx], x)
            self.assertAllClose(1024.0, self.evaluate(r[0]))

    def testWhileGrad_NoGradient(self):
        with self.cached_session():
            v = tf.constant(2.0, name="v")
            c = lambda v: tf.less(v, 100.0)
            r = tf.while_loop(c, tf.square, [v], back_prop=False)
            r = tf.add(r, v)
            r = tf.gradients(r, v)
            self.assertAllClose(1.0, self.evaluate(r[0]))

    def testWhileGrad_NoDependency(self):
        with self.cached_session() as sess:
            variable = tf.Variable(tf.ones([2, 3]))
            duration = tf.zeros([], dtype=tf.int32)

            def cond(duration, tensor, _):
                del tensor
                return duration < 10

            def body(duration, tensor, _):
                return (duration + 1, tensor, tensor)

            tensors = tf.while_loop(cond=cond, body=body, loop_vars=[duration, variable, variable])
            cost = tf.reduce_sum(tensors[2])
            grad = tf.gradients(cost, [variable])
            self.evaluate(tf.global_variables_initializer())
            self.assertAllClose(np.ones([2, 3]), sess.run(grad[0]))

    def testWhileGrad_Const(self):
        with self.cached_session() as sess:
            c0 = tf.constant(0.0, name="c0")
            c1 = tf.constant(1.0, name="c1")
            duration = tf.constant(0, name="t")

            def cond(duration, _):
                return duration < 1

            def body(duration, _):
                return duration + 1, c1

            tensors = tf.while_loop(cond=cond, body=body, loop_vars=[duration, c0])
            cost = tf.reduce_sum(tensors[1])
            grad = tf.gradients(cost, [c0])
            self.assertAllClose(0.0, sess.run(grad[0]))

    def _doubling_loop(self, i, x):
        def b(i, x):
            return tf.add(i, 1), tf.multiply(x, 2.0)
        return tf.while_loop(lambda i, x: tf.less(i, 5), b, [i, x], parallel_iterations=1)

    def testWhileGrad_SerialTwoLoops(self):
        with self.cached_session():
            i = tf.constant(0, name="i")
            x = tf.constant(2.0, name="x")
            _, rx = self._doubling_loop(i, x)
            _, rx = self._doubling_loop(i, rx)
            r = tf.gradients([rx], x)
            self.assertAllClose(1024.0, self.evaluate(r[0]))

    def testWhileGrad_ParallelTwoLoops(self):
        with self.cached_session():
            i = tf.constant(0, name="i")
            x = tf.constant(2.0, name="x")
            _, r1 = self._doubling_loop(i, x)
            _, r2 = self._doubling_loop(i, x)
            rx = tf.add(r1, r2)
            r = tf.gradients([rx], x)
            self.assertAllClose(64.0, self.evaluate(r[0]))

    def testWhileGrad_OneOutputWithControlDependencyOnSecond(self):
        with self.cached_session():
            i = tf.constant(0, name="i")
            x = tf.constant(1.0, name="x")
            y = tf.constant(1.0, name="y")
            c = lambda i, *_: tf.less(i, 1, name="cond_less")

            def b(i, xi, yi):
                return (tf.add(i, 1, name="inc"), tf.identity(xi, name="xi"), tf.add(xi, yi, name="xi_plus_yi"))

            _, x_f, y_f = tf.while_loop(c, b, [i, x, y])
            with tf.control_dependencies([x_f]):
                y_f_d = tf.identity(y_f, name="y_f_d")
            self.assertAllClose(2.0, self.evaluate(y_f_d))
            g = tf.gradients([y_f_d], [x])[0]
            self.assertTrue(g is not None)
            self.assertAllClose(1.0, self.evaluate(g))

    def testNestedWhileGrad_Simple(self):
        with self.cached_session():
            v = tf.constant(1.0)

            def inner_loop(s):
                return tf.while_loop(lambda x: tf.less(x, 4.0), lambda x: tf.multiply(x, 2.0), [s])

            r = tf.while_loop(lambda x: tf.less(x, 2.0), lambda x: tf.multiply(inner_loop(x), 2.0), [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(8.0, self.evaluate(r))

    def _counted_doubling(self, s):
        z = tf.constant(0)
        c = lambda i, x: tf.less(i, 4)
        b = lambda i, x: [tf.add(i, 1), tf.multiply(x, 2.0)]
        return tf.while_loop(c, b, [z, s])

    def testNestedWhileGrad_SerialInner(self):
        with self.cached_session():
            v = tf.constant(1.0)
            c = lambda x: tf.less(x, 128.0)
            b = lambda x: self._counted_doubling(self._counted_doubling(x)[1])[1]
            r = tf.while_loop(c, b, [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(256.0, self.evaluate(r))

    def testNestedWhileGrad_ParallelInner(self):
        with self.cached_session():
            v = tf.constant(1.0)
            c = lambda x: tf.less(x, 128.0)
            b = lambda x: tf.multiply(self._counted_doubling(x)[1], self._counted_doubling(x)[1])
            r = tf.while_loop(c, b, [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(512.0, self.evaluate(r))

    def testNestedWhileGrad_ParallelIterations(self):
        # The stack pushes and pops of an inner loop run in the order of its outer loop's iterations.
        with self.cached_session() as sess:
            def inner_loop(t):
                return tf.map_fn(fn=lambda n: n + tf.square(var), elems=t, parallel_iterations=10)

            def outer_loop(inp):
                return tf.map_fn(fn=inner_loop, elems=inp, parallel_iterations=10)

            var = tf.Variable(tf.constant(3.0))
            inp = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
            res = outer_loop(inp)
            train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(tf.reduce_mean(tf.square(res)))
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            self.assertAllClose(2.999, self.evaluate(var))

    def testWhileCondGrad_Simple(self):
        with self.cached_session():
            v = tf.convert_to_tensor(2.0, name="v")
            n = tf.convert_to_tensor(100.0, name="n")
            one = tf.convert_to_tensor(1.0, name="one")
            c = lambda x: tf.less(x, n)
            b = lambda x: tf.cond(tf.constant(True), lambda: tf.square(x), lambda: tf.subtract(x, one))
            r = tf.while_loop(c, b, [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(1024.0, self.evaluate(r))

    def testWhileCondGrad_UnknownShape(self):
        with self.cached_session() as sess:
            v = tf.placeholder(tf.float32)
            n = tf.convert_to_tensor(100.0, name="n")
            one = tf.convert_to_tensor(1.0, name="one")
            c = lambda x: tf.less(x, n)
            b = lambda x: tf.cond(tf.constant(True), lambda: tf.square(x), lambda: tf.subtract(x, one))
            r = tf.while_loop(c, b, [v])
            r = tf.gradients(r, v)[0]
            self.assertAllClose(1024.0, sess.run(r, feed_dict={v: 2.0}))

    def testWhileGrad_Concat(self):
        with self.cached_session() as sess:
            x = tf.get_variable("x", initializer=[[1., 2.]])
            i0 = tf.constant(0)
            h0 = tf.zeros([0, 2])

            def condition(i, _):
                return i < 2

            def body(i, h):
                return i + 1, tf.concat([h, x], 0)

            _, h = tf.while_loop(condition, body, [i0, h0], [i0.get_shape(), tf.TensorShape([None, 2])])
            s = tf.reduce_sum(h)
            sess.run(tf.global_variables_initializer())
            op = tf.train.GradientDescentOptimizer(0.01).minimize(s)
            sess.run(op)
            self.assertAllClose([[0.98000002, 1.98000002]], sess.run(x))

    @skip_both("outdated: TensorFlow 2.21 gives None as the gradient of an int32 loop variable (int32 is not "
               "trainable there); the stored source expects 73")
    def testWhileWithRefsWithGradients_1(self):
        with self.cached_session() as sess:
            x = tf.Variable(0)._ref()  # the variable's ref tensor, as the original takes it
            i = tf.constant(0)
            c = lambda i, x: tf.less(i, 10)
            int32_ref = tf.as_dtype("int32_ref")  # the original's dtypes.int32_ref
            self.assertEqual(x.dtype, int32_ref)

            def body(i, x):
                self.assertEqual(x.dtype, int32_ref)
                return [i + 1, private("tensorflow.python.ops.gen_array_ops:ref_identity", "")(x)]

            r = tf.while_loop(c, body, [i, x], parallel_iterations=5)
            grad_ys = [tf.Variable(73)._ref()]
            grad = tf.gradients([r[1]], [x], grad_ys=grad_ys)
            self.evaluate(tf.global_variables_initializer())
            self.assertEqual(r[0].dtype, tf.int32)
            self.assertEqual(r[1].dtype, int32_ref)
            value_i, value_x, value_x_grad = sess.run(r + grad)
        self.assertEqual(10, value_i)
        self.assertEqual(0, value_x)
        self.assertEqual(73, value_x_grad)

    def testWhileGrad_IndexedSlices(self):
        with self.cached_session():
            values = tf.constant([2.0, 4.0], name="values")
            indices = tf.constant([0, 3], name="indices")
            shape = tf.constant([10], name="dense_shape")
            i = tf.constant(0)
            x = tf.IndexedSlices(values, indices, dense_shape=shape)

            def c(i, _):
                return i < 10

            def b(i, x):
                return [i + 1, tf.IndexedSlices(x.values * 2.0, x.indices, x.dense_shape)]

            _, r = tf.while_loop(c, b, [i, x])
            r = tf.gradients(r.values, values)[0]
            self.assertAllClose(np.array([1024.0, 1024.0]), self.evaluate(r))

    def testWhileGrad_SparseTensor(self):
        with self.cached_session():
            values = tf.constant([2.0, 4.0], name="values")
            indices = tf.constant([[0], [3]], dtype=tf.int64, name="indices")
            shape = tf.constant([10], dtype=tf.int64, name="dense_shape")
            i = tf.constant(0)
            x = tf.SparseTensor(indices, values, dense_shape=shape)

            def c(i, _):
                return i < 10

            def b(i, x):
                return [i + 1, tf.SparseTensor(x.indices, x.values * 2.0, x.dense_shape)]

            _, r = tf.while_loop(c, b, [i, x])
            r = tf.gradients(r.values, values)[0]
            self.assertAllClose(np.array([1024.0, 1024.0]), self.evaluate(r))

    def testCallGradInLoop(self):
        with self.cached_session() as sess:
            i0 = tf.constant(0)
            params = tf.constant(5.0)
            params_1 = tf.square(params)

            def c(i, _):
                return i < 10

            def b(i, x):
                data = tf.constant([1.0, 2.0, 3.0])
                data = tf.multiply(data, params_1)
                x1 = x + tf.gradients(data, params)[0]
                return i + 1, x1

            output_grad = tf.while_loop(c, b, [i0, tf.constant(0.0)])
            self.assertAllClose(600.0, sess.run(output_grad)[1])

    def testWhileAndTensorArray(self):
        with self.cached_session() as sess:
            param = tf.constant(2.0)
            n0 = tf.constant(0)
            y0 = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="elems")

            def c(i, _):
                return i < 10

            def b(i, y):
                return [i + 1, tf.map_fn(lambda x: tf.multiply(x, param), y)]

            r = tf.while_loop(c, b, [n0, y0], parallel_iterations=1)
            r = tf.gradients(r, param)[0]
            self.assertAllClose(107520.0, sess.run(r))

    def testWhileGrad_StopGrad(self):
        with self.cached_session():
            x = tf.constant(3.0, name="x")
            y = tf.constant(2.0, name="y")
            c = lambda x, y: tf.less(x, 100.0)

            def b(x, y):
                y1 = tf.square(y)
                x1 = tf.add(tf.square(x), y1)
                return x1, y1

            rx, ry = tf.while_loop(c, b, [x, y])
            r = tf.gradients(rx, y)[0]
            self.assertEqual(136.0, self.evaluate(r))
            r = tf.gradients(ry, y)[0]
            self.assertEqual(32.0, self.evaluate(r))
            self.assertEqual(tf.gradients(tf.stop_gradient(rx), y)[0], None)
            self.assertEqual(tf.gradients(tf.stop_gradient(ry), y)[0], None)
            self.assertEqual(tf.gradients(tf.stop_gradient(tf.square(rx)), y)[0], None)
            self.assertEqual(tf.gradients(tf.stop_gradient(tf.add(rx, ry)), x)[0], None)
            self.assertEqual(tf.gradients(tf.stop_gradient(tf.add(rx, ry)), y)[0], None)
            r = tf.gradients(tf.add(rx, ry), y)[0]
            self.assertEqual(168.0, self.evaluate(r))
            r = tf.gradients(tf.add(rx, tf.stop_gradient(ry)), y)[0]
            self.assertEqual(136.0, self.evaluate(r))
            r = tf.gradients(tf.add(tf.stop_gradient(rx), ry), y)[0]
            self.assertEqual(32.0, self.evaluate(r))

    def testWhileGrad_StopGradInside(self):
        with self.cached_session():
            x = tf.constant(3.0, name="x")
            y = tf.constant(2.0, name="y")
            c = lambda x, y: tf.less(x, 100.0)

            def b(x, y):
                y1 = tf.stop_gradient(tf.square(y))
                x1 = tf.add(tf.square(x), y1)
                return x1, y1

            rx, _ = tf.while_loop(c, b, [x, y])
            r = tf.gradients(rx, y)[0]
            self.assertAllClose(0.0, self.evaluate(r))
            r = tf.gradients(rx, x)[0]
            self.assertAllClose(156.0, self.evaluate(r))

    def testWhileGrad_StopGradInsideNoShape(self):
        with self.cached_session() as sess:
            x = tf.placeholder(tf.float32)
            y = tf.placeholder(tf.float32)
            c = lambda x, y: tf.less(tf.reduce_sum(x), 100.0)

            def b(x, y):
                y1 = tf.stop_gradient(tf.square(y, name="stopped"))
                x1 = tf.add(tf.square(x), y1)
                return x1, y1

            rx, _ = tf.while_loop(c, b, [x, y])
            r = tf.gradients(rx, y)[0]
            feed_dict = {x: [3.0, 4.0], y: [2.0, 3.0]}
            self.assertAllClose([0.0, 0.0], sess.run(r, feed_dict=feed_dict))
            r = tf.gradients(rx, x)[0]
            self.assertAllClose([156.0, 400.0], sess.run(r, feed_dict=feed_dict))
            name = "gradients/while/stopped_grad"
            all_ops = x.graph.get_operations()
            self.assertFalse(any(name in op.name for op in all_ops))

    def testWhileGradGradFail(self):
        theta = tf.Variable(initial_value=1.)

        def fn(prev, x):
            return prev + x * theta

        result = tf.scan(fn, np.array([1., 2., 3.], dtype=np.float32))
        grad_theta = tf.gradients(result, theta)
        with self.assertRaisesRegex(TypeError, "Second-order gradient"):
            tf.gradients(grad_theta, theta)
        grad_theta_stopped = tf.stop_gradient(grad_theta)
        tf.gradients(grad_theta_stopped, theta)

    def testStopGradOnWhileGrad(self):
        with self.cached_session():
            x = tf.constant(2.0, name="x")
            y = tf.constant(2.0, name="y")
            c = lambda x: tf.less(x, 100.0)
            b = lambda x: tf.multiply(x, y)
            rx = tf.while_loop(c, b, [x])
            rg = tf.gradients(rx, y)[0]
            rg = tf.stop_gradient(rg)
            r = tf.add(tf.square(y), rx)
            r = tf.add(r, rg)
            r = tf.gradients(r, y)[0]
            self.assertEqual(388.0, self.evaluate(r))

    def testStopGradMultiFlows(self):
        with self.cached_session():
            def body(i, y, r):
                x = tf.get_variable("x", shape=(), dtype=tf.float32, initializer=tf.ones_initializer())
                y *= x
                return [i + 1, y, r + tf.reduce_sum(y)]

            i0 = tf.constant(0)
            y0 = tf.ones(5)
            r0 = tf.constant(0.0)
            cond = lambda i, y, r: i < 1
            _, _, r = tf.while_loop(cond, body, [i0, y0, r0], back_prop=True)
            vars_ = tf.global_variables()
            # the original takes linalg_ops.norm of the gradient: a Euclidean norm, spelled out here
            grads = tf.sqrt(tf.reduce_sum(tf.square(tf.gradients(r, vars_)[0])))
            z = tf.add(r, tf.stop_gradient(tf.reduce_sum(grads)))
            result = tf.gradients(z, vars_)[0]
            self.evaluate(tf.global_variables_initializer())
            self.assertEqual(5.0, self.evaluate(result))
