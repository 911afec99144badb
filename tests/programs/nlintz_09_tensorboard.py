# A 784-625-625-10 ReLU net with dropout on inputs and hidden layers, trained with RMSProp, with TensorBoard
# summaries: histograms of the three weight matrices, cost and accuracy scalars under name scopes, merge_all
# and a FileWriter given sess.graph; the test accuracy printed after each epoch.
# After: nlintz/TensorFlow-Tutorials, 09_tensorboard.py (MIT license, Nathan Lintz): same init_weights
# (random_normal stddev 0.01, named), model() with layer1/layer2/layer3 name scopes, placeholders named
# X/Y/p_keep_input/p_keep_hidden, RMSPropOptimizer(0.001, 0.9), keep probabilities 0.8/0.5 in training and
# 1.0 in testing, "i acc" lines. Rewritten for this project rather than copied. Edits: the import line; MNIST
# -> the local stand-in `input_data`; 100 epochs -> 3; tf.set_random_seed(37) (seeded dropout masks and
# weights); log dir relative; at the end the last summary event's tags are printed.
import glob

import tensorflow.compat.v1 as tf
import input_data

tf.set_random_seed(37)


def init_weights(shape, name):
    return tf.Variable(tf.random_normal(shape, stddev=0.01), name=name)


def model(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden):
    with tf.name_scope("layer1"):
        X = tf.nn.dropout(X, p_keep_input)
        h = tf.nn.relu(tf.matmul(X, w_h))
    with tf.name_scope("layer2"):
        h = tf.nn.dropout(h, p_keep_hidden)
        h2 = tf.nn.relu(tf.matmul(h, w_h2))
    with tf.name_scope("layer3"):
        h2 = tf.nn.dropout(h2, p_keep_hidden)
        return tf.matmul(h2, w_o)


mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
trX, trY, teX, teY = mnist.train.images, mnist.train.labels, mnist.test.images, mnist.test.labels

X = tf.placeholder("float", [None, 784], name="X")
Y = tf.placeholder("float", [None, 10], name="Y")

w_h = init_weights([784, 625], "w_h")
w_h2 = init_weights([625, 625], "w_h2")
w_o = init_weights([625, 10], "w_o")

tf.summary.histogram("w_h_summ", w_h)
tf.summary.histogram("w_h2_summ", w_h2)
tf.summary.histogram("w_o_summ", w_o)

p_keep_input = tf.placeholder("float", name="p_keep_input")
p_keep_hidden = tf.placeholder("float", name="p_keep_hidden")
py_x = model(X, w_h, w_h2, w_o, p_keep_input, p_keep_hidden)

with tf.name_scope("cost"):
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=py_x, labels=Y))
    train_op = tf.train.RMSPropOptimizer(0.001, 0.9).minimize(cost)
    tf.summary.scalar("cost", cost)

with tf.name_scope("accuracy"):
    correct_pred = tf.equal(tf.argmax(Y, 1), tf.argmax(py_x, 1))
    acc_op = tf.reduce_mean(tf.cast(correct_pred, "float"))
    tf.summary.scalar("accuracy", acc_op)

with tf.Session() as sess:
    writer = tf.summary.FileWriter("./logs/nn_logs", sess.graph)
    merged = tf.summary.merge_all()
    tf.global_variables_initializer().run()
    for i in range(3):
        for start, end in zip(range(0, len(trX), 128), range(128, len(trX) + 1, 128)):
            sess.run(train_op, feed_dict={X: trX[start:end], Y: trY[start:end],
                                          p_keep_input: 0.8, p_keep_hidden: 0.5})
        summary, acc = sess.run([merged, acc_op], feed_dict={X: teX, Y: teY,
                                                             p_keep_input: 1.0, p_keep_hidden: 1.0})
        writer.add_summary(summary, i)
        print(i, acc)
    writer.close()

[event_file] = glob.glob("logs/nn_logs/events.out.tfevents.*")
last = list(tf.train.summary_iterator(event_file))[-1]
print("last event: step", last.step, "tags", [value.tag for value in last.summary.value])
