# Save every epoch with the global step; a restarted run restores the latest checkpoint and goes on.
# After: nlintz/TensorFlow-Tutorials, 10_save_restore_net.py (MIT license, Nathan Lintz): same
# "./ckpt_dir" made with os.makedirs, global_step = tf.Variable(0, name='global_step', trainable=False),
# a Saver made before a variable it must not store (non_storable_variable), tf.train.get_checkpoint_state
# and saver.restore, start = global_step.eval(), global_step.assign(i).eval() and
# saver.save(..., global_step=global_step) each epoch. Rewritten for this project rather than copied.
# Edits: the import line; MNIST -> the local stand-in `input_data`; the network is 03_net's (sigmoid,
# 784-625-10, SGD 0.05) instead of the dropout one; 100 epochs -> 2 per run: the harness runs this program
# twice in one directory (the tutorial says: stop it and restart), so the second run starts from epoch 2;
# tf.set_random_seed(8) added so both runs agree.
import os

import numpy as np
import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(8)


def init_weights(shape):
    return tf.Variable(tf.random_normal(shape, stddev=0.01))


def model(X, w_h, w_o):
    h = tf.nn.sigmoid(tf.matmul(X, w_h))
    return tf.matmul(h, w_o)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784])
Y = tf.placeholder("float", [None, 10])

w_h = init_weights([784, 625])
w_o = init_weights([625, 10])
py_x = model(X, w_h, w_o)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
train_op = tf.train.GradientDescentOptimizer(0.05).minimize(cost)
predict_op = tf.argmax(py_x, 1)

ckpt_dir = "./ckpt_dir"
if not os.path.exists(ckpt_dir):
    os.makedirs(ckpt_dir)

global_step = tf.Variable(0, name='global_step', trainable=False)

# Made after every variable it should save:
saver = tf.train.Saver()

# Not in the checkpoint: declared after the Saver.
non_storable_variable = tf.Variable(777)

with tf.Session() as sess:
    tf.global_variables_initializer().run()

    ckpt = tf.train.get_checkpoint_state(ckpt_dir)
    if ckpt and ckpt.model_checkpoint_path:
        print(ckpt.model_checkpoint_path)
        saver.restore(sess, ckpt.model_checkpoint_path)

    start = global_step.eval()
    print("Start from:", start)

    for i in range(start, start + 2):
        for begin, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128)):
            sess.run(train_op, feed_dict={X: trX[begin:end], Y: trY[begin:end]})

        global_step.assign(i + 1).eval()
        saver.save(sess, ckpt_dir + "/model.ckpt", global_step=global_step)
        print(i, np.mean(np.argmax(teY, axis=1) == sess.run(predict_op, feed_dict={X: teX})),
              sess.run(cost, feed_dict={X: teX, Y: teY}))
    print("checkpoints:", sorted(name for name in os.listdir(ckpt_dir) if name.endswith(".index")))
