# A three-conv-layer MNIST net (3x3 convs of 32/64/128 filters, each ReLU + 2x2 max_pool SAME + dropout,
# then 2048-625-10 fully connected with dropout), trained with RMSProp; test accuracy on a random test batch
# after each epoch. After: nlintz/TensorFlow-Tutorials, 05_convolutional_net.py (MIT license, Nathan Lintz):
# same init_weights (random_normal stddev 0.01), model(), keep probabilities 0.8/0.5, RMSPropOptimizer(0.001,
# 0.9), argmax predictions and "i accuracy" lines. Rewritten for this project rather than copied (Python 3).
# Edits: the import line; MNIST -> the local stand-in `input_data` (its first 512 training images); 100
# epochs -> 2, test_size 256 -> 128; softmax_cross_entropy_with_logits(py_x, Y) -> keyword arguments (TF >= 1.0);
# tf.initialize_all_variables -> tf.global_variables_initializer; the test batch drawn by a seeded
# np.random.RandomState; tf.set_random_seed(53).
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(53)
rng = np.random.RandomState(53)

batch_size = 128
test_size = 128


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def model(X, w, w2, w3, w4, w_o, p_keep_conv, p_keep_hidden):
    l1a = tf.nn.relu(tf.nn.conv2d(X, w, strides=[1, 1, 1, 1], padding='SAME'))
    l1 = tf.nn.max_pool(l1a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    l1 = tf.nn.dropout(l1, p_keep_conv)
    l2a = tf.nn.relu(tf.nn.conv2d(l1, w2, strides=[1, 1, 1, 1], padding='SAME'))
    l2 = tf.nn.max_pool(l2a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    l2 = tf.nn.dropout(l2, p_keep_conv)
    l3a = tf.nn.relu(tf.nn.conv2d(l2, w3, strides=[1, 1, 1, 1], padding='SAME'))
    l3 = tf.nn.max_pool(l3a, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    l3 = tf.reshape(l3, [-1, w4.get_shape().as_list()[0]])
    l3 = tf.nn.dropout(l3, p_keep_conv)
    l4 = tf.nn.relu(tf.matmul(l3, w4))
    l4 = tf.nn.dropout(l4, p_keep_hidden)
    return tf.matmul(l4, w_o)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images[:512], mnist.train.labels[:512], mnist.test.images, mnist.test.labels
trX = trX.reshape(-1, 28, 28, 1)
teX = teX.reshape(-1, 28, 28, 1)

X = tf.placeholder("float", [None, 28, 28, 1])
Y = tf.placeholder("float", [None, 10])

w = init_weights([3, 3, 1, 32])
w2 = init_weights([3, 3, 32, 64])
w3 = init_weights([3, 3, 64, 128])
w4 = init_weights([128 * 4 * 4, 625])
w_o = init_weights([625, 10])

p_keep_conv = tf.placeholder("float")
p_keep_hidden = tf.placeholder("float")
py_x = model(X, w, w2, w3, w4, w_o, p_keep_conv, p_keep_hidden)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
train_op = tf.train.RMSPropOptimizer(0.001, 0.9).minimize(cost)
predict_op = tf.argmax(py_x, 1)

with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for i in range(2):
        training_batch = zip(range(0, len(trX), batch_size), range(batch_size, len(trX), batch_size))
        for start, end in training_batch:
            sess.run(train_op, feed_dict={X: trX[start:end], Y: trY[start:end],
                                          p_keep_conv: 0.8, p_keep_hidden: 0.5})
        test_indices = np.arange(len(teX))
        rng.shuffle(test_indices)
        test_indices = test_indices[0:test_size]
        print(i, np.mean(np.argmax(teY[test_indices], axis=1) ==
                         sess.run(predict_op, feed_dict={X: teX[test_indices], Y: teY[test_indices],
                                                         p_keep_conv: 1.0, p_keep_hidden: 1.0})))
    print("cost on the test batch: %.6f" % sess.run(cost, feed_dict={X: teX[test_indices], Y: teY[test_indices],
                                                                      p_keep_conv: 1.0, p_keep_hidden: 1.0}))
