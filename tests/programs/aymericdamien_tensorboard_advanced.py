# A ReLU perceptron (784-256-256-10) with TensorBoard summaries of activations, weights and gradients.
# After: aymericdamien/TensorFlow-Examples, examples/4_Utils/tensorboard_advanced.py (MIT license, Aymeric
# Damien): same multilayer_perceptron() with tf.summary.histogram of each ReLU layer, variables named
# W1..W3/b1..b3 from tf.random_normal, name scopes Model/Loss/SGD/Accuracy, reduce_sum of
# softmax_cross_entropy_with_logits, tf.gradients over tf.trainable_variables() applied by
# GradientDescentOptimizer(0.01).apply_gradients, scalar summaries of loss and accuracy, a histogram per
# variable (named var.name) and per gradient, merge_all, a FileWriter with the graph, "Epoch: ... cost= ..."
# lines and the test accuracy. Rewritten for this project rather than copied (Python 3). Edits: the import
# line; MNIST -> the local stand-in `input_data`; 25 epochs -> 2; learning rate 0.01 -> 0.001 and the
# weights drawn with stddev 0.05 (with stddev 1 the logits are in the hundreds and float32 rounding
# differences grow chaotically); tf.set_random_seed(3) so both runs draw the same weights; logs_path -> a
# relative directory; at the end the summaries of the test set are written and read back, and their tags,
# the histograms' counts and ranges printed.
import glob

import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(3)

learning_rate = 0.001
training_epochs = 2
batch_size = 100
display_step = 1
logs_path = 'tensorflow_logs/example'

n_hidden_1 = 256
n_hidden_2 = 256
n_input = 784
n_classes = 10

x = tf.placeholder(tf.float32, [None, 784], name='InputData')
y = tf.placeholder(tf.float32, [None, 10], name='LabelData')


def multilayer_perceptron(x, weights, biases):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights['w1']), biases['b1']))
    tf.summary.histogram("relu1", layer_1)
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights['w2']), biases['b2']))
    tf.summary.histogram("relu2", layer_2)
    return tf.add(tf.matmul(layer_2, weights['w3']), biases['b3'])


weights = {
    'w1': tf.Variable(tf.random_normal([n_input, n_hidden_1], stddev=0.05), name='W1'),
    'w2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], stddev=0.05), name='W2'),
    'w3': tf.Variable(tf.random_normal([n_hidden_2, n_classes], stddev=0.05), name='W3'),
}
biases = {
    'b1': tf.Variable(tf.random_normal([n_hidden_1], stddev=0.05), name='b1'),
    'b2': tf.Variable(tf.random_normal([n_hidden_2], stddev=0.05), name='b2'),
    'b3': tf.Variable(tf.random_normal([n_classes], stddev=0.05), name='b3'),
}

with tf.name_scope('Model'):
    pred = multilayer_perceptron(x, weights, biases)
with tf.name_scope('Loss'):
    loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
with tf.name_scope('SGD'):
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    grads = tf.gradients(loss, tf.trainable_variables())
    grads = list(zip(grads, tf.trainable_variables()))
    apply_grads = optimizer.apply_gradients(grads_and_vars=grads)
with tf.name_scope('Accuracy'):
    acc = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
    acc = tf.reduce_mean(tf.cast(acc, tf.float32))

init = tf.global_variables_initializer()

tf.summary.scalar("loss", loss)
tf.summary.scalar("accuracy", acc)
for var in tf.trainable_variables():
    tf.summary.histogram(var.name, var)
for grad, var in grads:
    tf.summary.histogram(var.name + '/gradient', grad)
merged_summary_op = tf.summary.merge_all()

with tf.Session() as sess:
    sess.run(init)
    summary_writer = tf.summary.FileWriter(logs_path, graph=tf.get_default_graph())
    for epoch in range(training_epochs):
        avg_cost = 0.
        total_batch = int(mnist.train.num_examples / batch_size)
        for i in range(total_batch):
            batch_xs, batch_ys = mnist.train.next_batch(batch_size)
            _, c, summary = sess.run([apply_grads, loss, merged_summary_op],
                                     feed_dict={x: batch_xs, y: batch_ys})
            summary_writer.add_summary(summary, epoch * total_batch + i)
            avg_cost += c / total_batch
        if (epoch + 1) % display_step == 0:
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))
    print("Optimization Finished!")
    print("Accuracy:", acc.eval({x: mnist.test.images, y: mnist.test.labels}))
    # Summaries of the trained model (in a training step TF reads a variable before or after its update).
    summary = sess.run(merged_summary_op, feed_dict={x: mnist.test.images, y: mnist.test.labels})
    summary_writer.add_summary(summary, training_epochs * total_batch)
    summary_writer.close()

[event_file] = glob.glob(logs_path + "/events.out.tfevents.*")
last = [e for e in tf.train.summary_iterator(event_file) if e.HasField("summary")][-1]
print("step", last.step)
for value in last.summary.value:
    if value.HasField("histo"):
        print(value.tag, "histogram of", int(value.histo.num), "min %.4f max %.4f" % (value.histo.min, value.histo.max))
    else:
        print(value.tag, "%.6f" % value.simple_value)
