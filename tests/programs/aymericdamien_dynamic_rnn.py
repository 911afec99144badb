# An LSTM classifying variable-length toy sequences (linear ramps vs random values, padded to 20 steps):
# static_rnn with sequence_length, the last relevant output picked by tf.gather on a flattened index,
# softmax cross entropy, plain SGD(0.01); minibatch loss and accuracy every few steps, then test accuracy.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/dynamic_rnn.py (MIT license, Aymeric
# Damien): same ToySequenceData generator and next(), dynamicRNN() with tf.unstack, BasicLSTMCell(64),
# static_rnn(..., sequence_length=seqlen), tf.stack/tf.transpose, the tf.range(0, batch_size) *
# seq_max_len + (seqlen - 1) gather, random_normal output weights and the printed lines. Rewritten for this
# project rather than copied (Python 3). Edits: the import line; tf.contrib.rnn -> tf.nn.rnn_cell / tf.nn;
# random.seed(0) added (the generator uses Python's random); 300/100 samples instead of 1000/500;
# training_iters 1000000 -> 12 steps of 64 sequences (display every 3); tf.set_random_seed(3) added.
import random

import tensorflow.compat.v1 as tf

random.seed(0)


class ToySequenceData(object):
    """Sequences of 3 to 20 values in [0, 1], padded with zeros to max_seq_len: class 0 linear, class 1 random."""

    def __init__(self, n_samples=1000, max_seq_len=20, min_seq_len=3, max_value=1000):
        self.data = []
        self.labels = []
        self.seqlen = []
        for _ in range(n_samples):
            length = random.randint(min_seq_len, max_seq_len)
            self.seqlen.append(length)
            if random.random() < .5:
                start = random.randint(0, max_value - length)
                s = [[float(i) / max_value] for i in range(start, start + length)]
                self.labels.append([1., 0.])
            else:
                s = [[float(random.randint(0, max_value)) / max_value] for _ in range(length)]
                self.labels.append([0., 1.])
            s += [[0.] for _ in range(max_seq_len - length)]
            self.data.append(s)
        self.batch_id = 0

    def next(self, batch_size):
        """The next batch (data, labels, lengths), starting over at the end."""
        if self.batch_id == len(self.data):
            self.batch_id = 0
        end = min(self.batch_id + batch_size, len(self.data))
        batch = (self.data[self.batch_id:end], self.labels[self.batch_id:end], self.seqlen[self.batch_id:end])
        self.batch_id = end
        return batch


learning_rate = 0.01
batch_size = 64
training_iters = 13 * batch_size
display_step = 3

seq_max_len = 20
n_hidden = 64
n_classes = 2

trainset = ToySequenceData(n_samples=300, max_seq_len=seq_max_len)
testset = ToySequenceData(n_samples=100, max_seq_len=seq_max_len)
tf.set_random_seed(3)

x = tf.placeholder("float", [None, seq_max_len, 1])
y = tf.placeholder("float", [None, n_classes])
seqlen = tf.placeholder(tf.int32, [None])

weights = {'out': tf.Variable(tf.random_normal([n_hidden, n_classes]))}
biases = {'out': tf.Variable(tf.random_normal([n_classes]))}


def dynamicRNN(x, seqlen, weights, biases):
    x = tf.unstack(x, seq_max_len, 1)
    lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(n_hidden)
    outputs, states = tf.nn.static_rnn(lstm_cell, x, dtype=tf.float32, sequence_length=seqlen)
    # The output at each sequence's last real step: flatten (batch, step) and gather.
    outputs = tf.stack(outputs)
    outputs = tf.transpose(outputs, [1, 0, 2])
    batch_size = tf.shape(outputs)[0]
    index = tf.range(0, batch_size) * seq_max_len + (seqlen - 1)
    outputs = tf.gather(tf.reshape(outputs, [-1, n_hidden]), index)
    return tf.matmul(outputs, weights['out']) + biases['out']


pred = dynamicRNN(x, seqlen, weights, biases)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate).minimize(cost)

correct_pred = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    step = 1
    while step * batch_size < training_iters:
        batch_x, batch_y, batch_seqlen = trainset.next(batch_size)
        sess.run(optimizer, feed_dict={x: batch_x, y: batch_y, seqlen: batch_seqlen})
        if step % display_step == 0:
            acc = sess.run(accuracy, feed_dict={x: batch_x, y: batch_y, seqlen: batch_seqlen})
            loss = sess.run(cost, feed_dict={x: batch_x, y: batch_y, seqlen: batch_seqlen})
            print("Iter " + str(step * batch_size) + ", Minibatch Loss= " + "{:.6f}".format(loss) +
                  ", Training Accuracy= " + "{:.5f}".format(acc))
        step += 1
    print("Optimization Finished!")
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={x: testset.data, y: testset.labels,
                                                             seqlen: testset.seqlen}))
