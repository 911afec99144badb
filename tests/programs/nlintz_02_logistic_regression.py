# Logistic regression on MNIST-shaped data: random-normal weights, softmax cross entropy, SGD(0.05).
# After: nlintz/TensorFlow-Tutorials, 02_logistic_regression.py (MIT license, Nathan Lintz): same
# init_weights(shape) = tf.Variable(tf.random_normal(shape, stddev=0.01)), model = tf.matmul(X, w),
# softmax_cross_entropy_with_logits cost, GradientDescentOptimizer(0.05), predict_op = tf.argmax(py_x, 1),
# batches of 128 by zip(range(...)), and the printed (epoch, test accuracy). Rewritten for this project
# rather than copied. Edits: the import line; MNIST -> the local stand-in `input_data`; 100 epochs -> 3;
# tf.set_random_seed(5) added so both runs agree.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(5)


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def model(X, w):
    return tf.matmul(X, w)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])

w = init_weights([784, 10])
py_x = model(X, w)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
train_op = tf.train.GradientDescentOptimizer(0.05).minimize(cost)
predict_op = tf.argmax(py_x, 1)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(3):
        for start, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128)):
            sess.run(train_op, feed_dict={X: trX[start:end], Y: trY[start:end]})
        print(i, np.mean(np.argmax(teY, axis=1) == sess.run(predict_op, feed_dict={X: teX})),
              sess.run(cost, feed_dict={X: teX, Y: teY}))
