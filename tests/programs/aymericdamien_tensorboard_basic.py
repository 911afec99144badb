# Logistic regression on MNIST with its loss and accuracy logged for TensorBoard: name scopes around the
# model, loss, SGD and accuracy, tf.summary.scalar x2, merge_all, a FileWriter given the graph and a summary
# added at every step. After: aymericdamien/TensorFlow-Examples, examples/4_Utils/tensorboard_basic.py (MIT
# license, Aymeric Damien): same zeros-initialized W/b named 'Weights'/'Bias', softmax model, cross entropy
# by reduce_sum(y * log(pred)), GradientDescentOptimizer(0.01), "Epoch: ... cost= ..." lines, test accuracy
# and the closing "Run the command line" message. Rewritten for this project rather than copied (Python 3).
# Edits: the import line; MNIST -> the local stand-in `input_data`; 25 epochs -> 3; logs_path
# '/tmp/tensorflow_logs/example' -> a relative directory; at the end the event file is read back with
# tf.train.summary_iterator and the steps and tags it holds are printed (what TensorBoard would show).
import glob

import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)

learning_rate = 0.01
training_epochs = 3
batch_size = 100
display_step = 1
logs_path = 'tensorflow_logs/example'

x = tf.placeholder(tf.float32, [None, 784], name='InputData')
y = tf.placeholder(tf.float32, [None, 10], name='LabelData')

W = tf.Variable(tf.zeros([784, 10]), name='Weights')
b = tf.Variable(tf.zeros([10]), name='Bias')

with tf.name_scope('Model'):
    pred = tf.nn.softmax(tf.matmul(x, W) + b)
with tf.name_scope('Loss'):
    cost = tf.reduce_mean(-tf.reduce_sum(y * tf.log(pred), reduction_indices=1))
with tf.name_scope('SGD'):
    optimizer = tf.train.GradientDescentOptimizer(learning_rate).minimize(cost)
with tf.name_scope('Accuracy'):
    acc = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
    acc = tf.reduce_mean(tf.cast(acc, tf.float32))

init = tf.global_variables_initializer()

tf.summary.scalar("loss", cost)
tf.summary.scalar("accuracy", acc)
merged_summary_op = tf.summary.merge_all()

with tf.Session() as sess:
    sess.run(init)
    summary_writer = tf.summary.FileWriter(logs_path, graph=tf.get_default_graph())
    for epoch in range(training_epochs):
        avg_cost = 0.
        total_batch = int(mnist.train.num_examples / batch_size)
        for i in range(total_batch):
            batch_xs, batch_ys = mnist.train.next_batch(batch_size)
            _, c, summary = sess.run([optimizer, cost, merged_summary_op],
                                     feed_dict={x: batch_xs, y: batch_ys})
            summary_writer.add_summary(summary, epoch * total_batch + i)
            avg_cost += c / total_batch
        if (epoch + 1) % display_step == 0:
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))
    print("Optimization Finished!")
    print("Accuracy:", acc.eval({x: mnist.test.images, y: mnist.test.labels}))
    print("Run the command line:\n"
          "--> tensorboard --logdir=tensorflow_logs "
          "\nThen open http://0.0.0.0:6006/ into your web browser")
    summary_writer.close()

# What TensorBoard would read: the graph event, then one summary event per step.
[event_file] = glob.glob(logs_path + "/events.out.tfevents.*")
events = list(tf.train.summary_iterator(event_file))
print("first event: file_version", events[0].file_version)
print("graph events:", sum(1 for e in events if e.graph_def))
summaries = [e for e in events if e.HasField("summary")]
print("summary events:", len(summaries), "steps", summaries[0].step, "to", summaries[-1].step)
last = summaries[-1].summary.value
print("last step tags:", [v.tag for v in last], "loss=%.6f" % last[0].simple_value,
      "accuracy=%.6f" % last[1].simple_value)
