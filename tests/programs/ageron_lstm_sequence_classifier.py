# MNIST images read row by row by a 3-layer LSTM under tf.nn.dynamic_rnn: the top layer's final h state
# through tf.layers.dense, sparse softmax cross entropy, Adam(0.001), accuracy with tf.nn.in_top_k; the
# train and test accuracy after each epoch.
# After: ageron/handson-ml, 14_recurrent_neural_networks.ipynb, "Training a sequence classifier" with its
# "LSTM" cells (Apache 2.0, Aurelien Geron): n_steps = n_inputs = 28, n_neurons = 150, n_layers = 3,
# BasicLSTMCell layers in a MultiRNNCell, dynamic_rnn(..., dtype=tf.float32), states[-1][1] as the top
# layer's h, tf.layers.dense(..., name="softmax"), in_top_k(logits, y, 1), accuracy.eval and the printed
# "epoch Train accuracy: ... Test accuracy: ..." lines. Rewritten for this project rather than copied.
# Edits: the import line; tf.contrib.rnn -> tf.nn.rnn_cell (its TF1.x home); MNIST -> the local stand-in
# `input_data` (sparse labels); reset_graph(42) -> tf.set_random_seed(42); 10 epochs of all batches ->
# 2 epochs of 3 batches of 50; the test accuracy on the stand-in's 200 test images.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(42)
np.random.seed(42)

n_steps = 28
n_inputs = 28
n_neurons = 150
n_outputs = 10
n_layers = 3
learning_rate = 0.001

X = tf.placeholder(tf.float32, [None, n_steps, n_inputs])
y = tf.placeholder(tf.int32, [None])

lstm_cells = [tf.nn.rnn_cell.BasicLSTMCell(num_units=n_neurons) for layer in range(n_layers)]
multi_cell = tf.nn.rnn_cell.MultiRNNCell(lstm_cells)
outputs, states = tf.nn.dynamic_rnn(multi_cell, X, dtype=tf.float32)
top_layer_h_state = states[-1][1]
logits = tf.layers.dense(top_layer_h_state, n_outputs, name="softmax")
xentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
loss = tf.reduce_mean(xentropy, name="loss")
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
training_op = optimizer.minimize(loss)
correct = tf.nn.in_top_k(logits, y, 1)
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

init = tf.global_variables_initializer()

mnist = input_data.read_data_sets("/tmp/data/")
X_test = mnist.test.images.reshape((-1, n_steps, n_inputs))
y_test = mnist.test.labels

n_epochs = 2
batch_size = 50
n_iterations = 3

print("states:", [[tuple(part.get_shape().as_list()) for part in layer] for layer in states])
with tf.Session() as sess:
    init.run()
    for epoch in range(n_epochs):
        for iteration in range(n_iterations):
            X_batch, y_batch = mnist.train.next_batch(batch_size)
            X_batch = X_batch.reshape((-1, n_steps, n_inputs))
            sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
        acc_train = accuracy.eval(feed_dict={X: X_batch, y: y_batch})
        acc_test = accuracy.eval(feed_dict={X: X_test, y: y_test})
        print(epoch, "Train accuracy:", acc_train, "Test accuracy:", acc_test, "Loss:",
              loss.eval(feed_dict={X: X_batch, y: y_batch}))
