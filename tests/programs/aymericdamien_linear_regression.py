# Linear regression by per-example gradient descent, printing cost, W and b every 50 epochs.
# After: aymericdamien/TensorFlow-Examples, examples/2_BasicModels/linear_regression.py (MIT license,
# Aymeric Damien): same model (pred = X*W + b), cost sum((pred-Y)^2)/(2n), GradientDescentOptimizer(0.01),
# per-sample feeds, printed lines. Rewritten for this project rather than copied (Python 3; the search
# tool's terms keep public code out of our commits). Edits: the import line; 1000 epochs -> 150;
# numpy.random.seed(0) added because W and b start from numpy random numbers and runs must agree;
# the 17 training points are our own numbers.
import numpy
import tensorflow.compat.v1 as tf

numpy.random.seed(0)
rng = numpy.random

learning_rate = 0.01
training_epochs = 150
display_step = 50

train_X = numpy.asarray([3.1, 4.2, 5.4, 6.6, 6.9, 4.1, 9.7, 6.1, 7.5, 2.1, 7.0, 10.7, 5.3, 7.9, 5.6, 9.2, 3.0])
train_Y = numpy.asarray([1.6, 2.1, 2.0, 3.1, 1.9, 1.5, 3.3, 2.5, 2.5, 1.2, 2.8, 3.4, 2.1, 2.9, 2.4, 2.9, 1.3])
n_samples = train_X.shape[0]

X = tf.placeholder("float")
Y = tf.placeholder("float")

W = tf.Variable(rng.randn(), name="weight")
b = tf.Variable(rng.randn(), name="bias")

pred = tf.add(tf.multiply(X, W), b)
cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * n_samples)
optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for epoch in range(training_epochs):
        for (x, y) in zip(train_X, train_Y):
            sess.run(optimizer, feed_dict={X: x, Y: y})
        if (epoch + 1) % display_step == 0:
            c = sess.run(cost, feed_dict={X: train_X, Y: train_Y})
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(c), "W=", sess.run(W), "b=", sess.run(b))

    print("Optimization Finished!")
    training_cost = sess.run(cost, feed_dict={X: train_X, Y: train_Y})
    print("Training cost=", training_cost, "W=", sess.run(W), "b=", sess.run(b))

    test_X = numpy.asarray([6.8, 4.4, 10.8, 6.2, 7.6, 3.0, 4.3, 9.0])
    test_Y = numpy.asarray([2.0, 2.3, 3.3, 2.3, 2.8, 1.3, 1.9, 3.1])
    testing_cost = sess.run(tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * test_X.shape[0]),
                            feed_dict={X: test_X, Y: test_Y})
    print("Testing cost=", testing_cost)
    print("Absolute mean square loss difference:", abs(training_cost - testing_cost))
