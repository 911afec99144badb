# A "modern" net: two ReLU hidden layers (625 units) with dropout, trained by RMSProp(0.001, 0.9).
# After: nlintz/TensorFlow-Tutorials, 04_modern_net.py (MIT license, Nathan Lintz): same
# tf.nn.dropout(X, p_keep_input) / tf.nn.relu(tf.matmul(...)) model with keep probabilities fed through
# placeholders (0.8 and 0.5 to train, 1.0 to test), RMSPropOptimizer(0.001, 0.9), argmax predictions and
# batches of 128. Rewritten for this project rather than copied. Edits: the import line; MNIST -> the
# local stand-in `input_data`; 100 epochs -> 2; tf.set_random_seed(7) added so the weights and the
# dropout masks agree between the two runs.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(7)


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def model(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden):
    X = tf.nn.dropout(X, p_keep_input)
    h = tf.nn.relu(tf.matmul(X, w_h))
    h = tf.nn.dropout(h, p_keep_hidden)
    h2 = tf.nn.relu(tf.matmul(h, w_h2))
    h2 = tf.nn.dropout(h2, p_keep_hidden)
    return tf.matmul(h2, w_o)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])

w_h = init_weights([784, 625])
w_h2 = init_weights([625, 625])
w_o = init_weights([625, 10])

p_keep_input = tf.placeholder("float")
p_keep_hidden = tf.placeholder("float")
py_x = model(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
train_op = tf.train.RMSPropOptimizer(0.001, 0.9).minimize(cost)
predict_op = tf.argmax(py_x, 1)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(2):
        for start, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128)):
            sess.run(train_op, feed_dict={X: trX[start:end], Y: trY[start:end],
                                          p_keep_input: 0.8, p_keep_hidden: 0.5})
        print(i, np.mean(np.argmax(teY, axis=1) == sess.run(predict_op, feed_dict={
            X: teX, p_keep_input: 1.0, p_keep_hidden: 1.0})),
            sess.run(cost, feed_dict={X: teX, Y: teY, p_keep_input: 1.0, p_keep_hidden: 1.0}))
