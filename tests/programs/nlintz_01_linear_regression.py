# Fit y = w*x through noisy points by per-example gradient descent on a squared error; print w.
# After: nlintz/TensorFlow-Tutorials, 01_linear_regression.py (MIT license, Nathan Lintz): same data
# recipe (linspace(-1, 1, 101), y = 2x + 0.33 noise), w = tf.Variable(0.0, name="weights"),
# cost tf.square(Y - y_model), GradientDescentOptimizer(0.01), one feed per example. Rewritten for this
# project rather than copied. Edits: the import line; 100 epochs -> 10 with w printed after each;
# np.random.seed(0) added because the noise is numpy random and runs must agree.
import numpy as np
import tensorflow.compat.v1 as tf

np.random.seed(0)
trX = np.linspace(-1, 1, 101)
trY = 2 * trX + np.random.randn(*trX.shape) * 0.33

X = tf.placeholder("float")
Y = tf.placeholder("float")


def model(X, w):
    return tf.multiply(X, w)


w = tf.Variable(0.0, name="weights")
y_model = model(X, w)

cost = tf.square(Y - y_model)
train_op = tf.train.GradientDescentOptimizer(0.01).minimize(cost)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(10):
        for (x, y) in zip(trX, trY):
            sess.run(train_op, feed_dict={X: x, Y: y})
        print(i, sess.run(w))
    print(sess.run(w))
