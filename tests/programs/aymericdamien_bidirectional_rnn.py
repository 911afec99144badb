# A bidirectional LSTM reading each 28x28 image as 28 rows: forward and backward BasicLSTMCell(128) under
# static_bidirectional_rnn, the last concatenated output through a linear layer, softmax cross entropy, Adam.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/bidirectional_rnn.py (MIT license,
# Aymeric Damien): same BiRNN() with tf.unstack(x, timesteps, 1), two BasicLSTMCell(num_hidden,
# forget_bias=1.0), static_bidirectional_rnn(..., dtype=tf.float32), 'out' weights of shape
# [2 * num_hidden, num_classes] from random_normal, AdamOptimizer(0.001), "Step N, Minibatch Loss= ...,
# Training Accuracy= ..." lines and the accuracy on 128 test images. Rewritten for this project rather
# than copied (Python 3). Edits: the import line; tensorflow.contrib.rnn -> tf.nn.rnn_cell / tf.nn (their
# TF1.x homes); MNIST -> the local stand-in `input_data`; 10000 steps of 128 -> 6 of 32 (display every 2);
# tf.set_random_seed(13).
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(13)

learning_rate = 0.001
training_steps = 6
batch_size = 32
display_step = 2

num_input = 28
timesteps = 28
num_hidden = 128
num_classes = 10

X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])

weights = {'out': tf.Variable(tf.random_normal([2 * num_hidden, num_classes]))}
biases = {'out': tf.Variable(tf.random_normal([num_classes]))}


def BiRNN(x, weights, biases):
    x = tf.unstack(x, timesteps, 1)
    lstm_fw_cell = tf.nn.rnn_cell.BasicLSTMCell(num_hidden, forget_bias=1.0)
    lstm_bw_cell = tf.nn.rnn_cell.BasicLSTMCell(num_hidden, forget_bias=1.0)
    outputs, _, _ = tf.nn.static_bidirectional_rnn(lstm_fw_cell, lstm_bw_cell, x, dtype=tf.float32)
    return tf.matmul(outputs[-1], weights['out']) + biases['out']


logits = BiRNN(X, weights, biases)
prediction = tf.nn.softmax(logits)

loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(1, training_steps + 1):
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        batch_x = batch_x.reshape((batch_size, timesteps, num_input))
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss)
                  + ", Training Accuracy= " + "{:.3f}".format(acc))
    print("Optimization Finished!")

    test_len = 128
    test_data = mnist.test.images[:test_len].reshape((-1, timesteps, num_input))
    test_label = mnist.test.labels[:test_len]
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={X: test_data, Y: test_label}))
