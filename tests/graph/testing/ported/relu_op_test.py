"""Relu, Relu6, Elu and CRelu kernels and gradients: a TF1-era kernel test whose only TensorFlow import is the
line below.

Ported from tensorflow/python/kernel_tests/relu_op_test.py @ 70018663d17f (zuowang/tensorflow, the TF 1.x era
file that imports ``tensorflow as tf``), Apache-2.0, rewritten as tests/tf_suites/README.md describes: TF's
class and method names, inputs, steps, expected values and tolerances.  The fork's own SeluTest (not TF's) is
left out; ``np.float`` (removed from numpy) is spelled ``np.float64``.  ``test_ported_files.py`` runs this file
under both frameworks by changing only its import line, and as a script through ``tf.test.main()``.
"""

import numpy as np

import graph.compat.v1 as tf

_INPUT = [[-9, 7, -5, 3, -1], [1, -3, 5, -7, 9]]
_NEAR_ZERO = [[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]]
_NEAR_ZERO_AND_SIX = [[-0.9, -0.7, -0.5, -0.3, -0.1], [6.1, 6.3, 6.5, 6.7, 6.9]]


def _gradient_error(test, activation, values, dtype, name, second_order=False):
    """compute_gradient_error of ``activation`` (or of its gradient) at ``values``, in a test session."""
    with test.test_session():
        x = tf.constant(np.ravel(values).tolist(), shape=[2, 5], dtype=dtype, name="x")
        y = activation(x, name=name)
        if second_order:
            y = tf.gradients(y, x)[0]
        x_init = np.asarray(values, dtype=dtype.as_numpy_dtype, order="F")
        return tf.test.compute_gradient_error(x, [2, 5], y, [2, 5], x_init_value=x_init)


class ReluTest(tf.test.TestCase):

    def _npRelu(self, np_features):
        return np.maximum(np_features, np.zeros(np_features.shape))

    def testNpRelu(self):
        self.assertAllClose(
            np.array([[0.0, 0.7, 0.0, 0.3, 0.0], [0.1, 0.0, 0.5, 0.0, 0.9]]),
            self._npRelu(np.array([[-0.9, 0.7, -0.5, 0.3, -0.1], [0.1, -0.3, 0.5, -0.7, 0.9]])))

    def _testRelu(self, np_features, use_gpu=False):
        np_relu = self._npRelu(np_features)
        with self.test_session(use_gpu=use_gpu):
            relu = tf.nn.relu(np_features)
            tf_relu = relu.eval()
        self.assertAllClose(np_relu, tf_relu)
        self.assertShapeEqual(np_relu, relu)

    def testNumbers(self):
        for t in [np.int32, np.int64, np.float16, np.float32, np.float64]:
            self._testRelu(np.array(_INPUT).astype(t), use_gpu=False)
            if t in [np.float16, np.float32, np.float64]:
                self._testRelu(np.array(_INPUT).astype(t), use_gpu=True)

    # Inputs stay away from zero, where the derivative is not defined.
    def testGradientFloat32(self):
        self.assertLess(_gradient_error(self, tf.nn.relu, _NEAR_ZERO, tf.float32, "relu"), 1e-4)

    def testGradientFloat64(self):
        self.assertLess(_gradient_error(self, tf.nn.relu, _NEAR_ZERO, tf.float64, "relu"), 1e-10)

    def testGradGradFloat32(self):
        self.assertLess(_gradient_error(self, tf.nn.relu, _NEAR_ZERO, tf.float32, "relu", second_order=True), 1e-4)

    def testGradGradFloat64(self):
        self.assertLess(_gradient_error(self, tf.nn.relu, _NEAR_ZERO, tf.float64, "relu", second_order=True),
                        1e-10)

    def testGradientScalar(self):
        with self.test_session() as sess:
            x = tf.Variable(100.)
            loss = tf.nn.relu(x) ** 2
            train_op = tf.train.GradientDescentOptimizer(learning_rate=0.25).minimize(loss)
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            self.assertAllClose(x.eval(), 50.0)


class Relu6Test(tf.test.TestCase):

    def _npRelu6(self, np_features):
        sixes = np.copy(np_features)
        sixes.fill(6.0)
        return np.minimum(np.maximum(np_features, np.zeros(np_features.shape)), sixes)

    def testNpRelu6(self):
        self.assertAllClose(
            np.array([[0.0, 0.7, 0.0, 0.3, 6.0], [0.1, 0.0, 6.0, 0.0, 0.9]]),
            self._npRelu6(np.array([[-0.9, 0.7, -0.5, 0.3, 6.0], [0.1, -0.3, 6.5, -0.7, 0.9]])))

    def _testRelu6(self, np_features, use_gpu=False):
        np_relu6 = self._npRelu6(np_features)
        with self.test_session(use_gpu=use_gpu):
            relu6 = tf.nn.relu6(np_features)
            tf_relu6 = relu6.eval()
        self.assertAllClose(np_relu6, tf_relu6)
        self.assertShapeEqual(np_relu6, relu6)

    def testNumbers(self):
        for t in [np.int32, np.int64, np.float16, np.float32, np.float64]:
            self._testRelu6(np.array(_INPUT).astype(t), use_gpu=False)
            if t in [np.float16, np.float64, np.double]:
                self._testRelu6(np.array(_INPUT).astype(t), use_gpu=True)

    # Inputs stay away from zero and six, where the derivative is not defined.
    def testGradientFloat32(self):
        self.assertLess(_gradient_error(self, tf.nn.relu6, _NEAR_ZERO_AND_SIX, tf.float32, "relu6"), 1e-4)

    def testGradientFloat64(self):
        self.assertLess(_gradient_error(self, tf.nn.relu6, _NEAR_ZERO_AND_SIX, tf.float64, "relu6"), 1e-10)


class EluTest(tf.test.TestCase):

    def _npElu(self, np_features):
        return np.where(np_features < 0, np.exp(np_features) - 1, np_features)

    def testNpElu(self):
        self.assertAllClose(
            np.array([[-0.59343034025, 0.7, -0.39346934028, 0.3, -0.09516258196],
                      [0.1, -0.25918177931, 0.5, -0.5034146962, 0.9]]),
            self._npElu(np.array([[-0.9, 0.7, -0.5, 0.3, -0.1], [0.1, -0.3, 0.5, -0.7, 0.9]])))

    def _testElu(self, np_features, use_gpu=False):
        np_elu = self._npElu(np_features)
        with self.test_session(use_gpu=use_gpu):
            elu = tf.nn.elu(np_features)
            tf_elu = elu.eval()
        self.assertAllClose(np_elu, tf_elu)
        self.assertShapeEqual(np_elu, elu)

    def testNumbers(self):
        for t in [np.float16, np.float32, np.float64]:
            self._testElu(np.array(_INPUT).astype(t), use_gpu=False)
            self._testElu(np.array(_INPUT).astype(t), use_gpu=True)

    def testGradientFloat32(self):
        self.assertLess(_gradient_error(self, tf.nn.elu, _NEAR_ZERO, tf.float32, "elu"), 1e-4)

    def testGradientFloat64(self):
        self.assertLess(_gradient_error(self, tf.nn.elu, _NEAR_ZERO, tf.float64, "elu"), 1e-6)

    def testGradGradFloat32(self):
        self.assertLess(_gradient_error(self, tf.nn.elu, _NEAR_ZERO, tf.float32, "elu", second_order=True), 1e-4)

    def testGradGradFloat64(self):
        self.assertLess(_gradient_error(self, tf.nn.elu, _NEAR_ZERO, tf.float64, "elu", second_order=True), 1e-6)


class CreluTest(tf.test.TestCase):

    def testCreluShape(self):
        f = tf.random_normal([50, 5, 7, 10])
        t = tf.nn.crelu(f)
        self.assertEqual([50, 5, 7, 20], t.get_shape())

    def _testCrelu(self, np_features, use_gpu=False):
        np_relu = np.maximum(np_features, np.zeros_like(np_features))
        np_neg_relu = np.maximum(-np_features, np.zeros_like(np_features))
        np_crelu = np.concatenate((np_relu, np_neg_relu), len(np_features.shape) - 1)
        with self.test_session(use_gpu=use_gpu):
            crelu = tf.nn.crelu(np_features)
            tf_relu = crelu.eval()
        self.assertAllClose(np_crelu, tf_relu)
        self.assertShapeEqual(np_crelu, crelu)

    def testNumbers(self):
        for t in [np.int32, np.int64, np.float16, np.float32, np.float64]:
            self._testCrelu(np.array(_INPUT).astype(t), use_gpu=False)
            if t in [np.float16, np.float32, np.float64]:
                self._testCrelu(np.array(_INPUT).astype(t), use_gpu=True)


if __name__ == "__main__":
    tf.test.main()
