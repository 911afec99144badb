"""Optimizers on scalar (0-d) and vector variables together: the in-place update kernels against TF."""

import numpy as np
import pytest

import graph.compat.v1 as ours

OPTIMIZERS = {
    "adam": lambda tf: tf.train.AdamOptimizer(0.1),
    "adam_beta1": lambda tf: tf.train.AdamOptimizer(0.1, beta1=0.5),
    "sgd": lambda tf: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    "nesterov": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
    "rmsprop": lambda tf: tf.train.RMSPropOptimizer(0.1),
    "adagrad": lambda tf: tf.train.AdagradOptimizer(0.1),
    "adadelta": lambda tf: tf.train.AdadeltaOptimizer(1.0),
    "ftrl": lambda tf: tf.train.FtrlOptimizer(0.1),
}


def _train(tf, make_optimizer, steps=3):
    with tf.Graph().as_default():
        scalar = tf.Variable(1.0, name="scalar")
        vector = tf.Variable([1.0, 2.0], name="vector")
        loss = tf.square(scalar - 3.0) + tf.reduce_sum(tf.square(vector))
        train = make_optimizer(tf).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            return sess.run([scalar, vector])


@pytest.mark.tf
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_scalar_and_vector_variables_train_as_in_tensorflow(tf_module, name):
    theirs = _train(tf_module, OPTIMIZERS[name])
    mine = _train(ours, OPTIMIZERS[name])
    assert np.ndim(mine[0]) == 0
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(mine[1], theirs[1], rtol=1e-6)
