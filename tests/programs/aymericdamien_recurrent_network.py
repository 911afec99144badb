# An LSTM reading each 28x28 image as 28 rows of 28 pixels: static_rnn over BasicLSTMCell(128), the last
# output through a linear layer, softmax cross entropy, Adam(0.001); minibatch loss and accuracy every few steps.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/recurrent_network.py (MIT license,
# Aymeric Damien): same RNN() with tf.unstack(x, n_steps, 1), BasicLSTMCell(n_hidden, forget_bias=1.0) and
# static_rnn(..., dtype=tf.float32), random_normal output weights, "Iter N, Minibatch Loss= ..., Training
# Accuracy= ..." lines and the accuracy on 128 test images. Rewritten for this project rather than copied
# (Python 3). Edits: the import line; tensorflow.contrib.rnn -> tf.nn.rnn_cell / tf.nn (its TF1.x home);
# MNIST -> the local stand-in `input_data`; training_iters 100000 -> 8 steps of 32 images (display every 2);
# tf.set_random_seed(5) added so both runs draw the same weights.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(5)

learning_rate = 0.001
batch_size = 32
training_iters = 9 * batch_size
display_step = 2

n_input = 28  # one image row per time step
n_steps = 28
n_hidden = 128
n_classes = 10

x = tf.placeholder("float", [None, n_steps, n_input])
y = tf.placeholder("float", [None, n_classes])

weights = {'out': tf.Variable(tf.random_normal([n_hidden, n_classes]))}
biases = {'out': tf.Variable(tf.random_normal([n_classes]))}


def RNN(x, weights, biases):
    x = tf.unstack(x, n_steps, 1)  # n_steps tensors of shape (batch, n_input)
    lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(n_hidden, forget_bias=1.0)
    outputs, states = tf.nn.static_rnn(lstm_cell, x, dtype=tf.float32)
    return tf.matmul(outputs[-1], weights['out']) + biases['out']


pred = RNN(x, weights, biases)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(cost)

correct_pred = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    step = 1
    while step * batch_size < training_iters:
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        batch_x = batch_x.reshape((batch_size, n_steps, n_input))
        sess.run(optimizer, feed_dict={x: batch_x, y: batch_y})
        if step % display_step == 0:
            acc = sess.run(accuracy, feed_dict={x: batch_x, y: batch_y})
            loss = sess.run(cost, feed_dict={x: batch_x, y: batch_y})
            print("Iter " + str(step * batch_size) + ", Minibatch Loss= " + "{:.6f}".format(loss) +
                  ", Training Accuracy= " + "{:.5f}".format(acc))
        step += 1
    print("Optimization Finished!")

    test_len = 128
    test_data = mnist.test.images[:test_len].reshape((-1, n_steps, n_input))
    test_label = mnist.test.labels[:test_len]
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={x: test_data, y: test_label}))
