# A five-layer ReLU MLP with dropout on MNIST that logs image, histogram and scalar summaries every step, keeps the
# epoch it reached in a Variable, and saves itself after every epoch: run again, it restores the last checkpoint
# and carries on from that epoch (here: finds the training done and only evaluates).
# After: hunkim/DeepLearningZeroToAll, lab-13-3-mnist_save_restore.py (Sung Kim and contributors; no license
# stated): same layers ('layer1'..'layer5' variable scopes, get_variable "W" with Xavier initialization, biases
# from random_normal, dropout fed keep_prob 0.7), tf.summary.image('input', x_image, 3), histograms of X, weights,
# biases and layers, the loss scalar, merge_all, FileWriter + add_graph(sess.graph), the last_epoch Variable,
# get_checkpoint_state / restore or start afresh, saver.save(sess, dir + "/model", global_step=i) with i the
# epoch's last batch (the same path every epoch), Adam(0.001), accuracy and one random test image's label and
# prediction, with tf.set_random_seed(777) as written. Rewritten for this project rather than copied. Edits (each
# marked "edit:" below): the import lines; MNIST -> the local stand-in `input_data`;
# tf.contrib.layers.xavier_initializer() -> tf.glorot_uniform_initializer() (the same distribution);
# training_epochs 15 -> 3 over the first 400 training images (the test runs the program twice: the second run
# resumes at epoch 3; over all 1100 images the rounding noise of near-zero gradients, which Adam scales up, puts
# the third epoch's cost 4e-5 apart between TensorFlow with and without oneDNN, and 1e-4 between TensorFlow and
# ours); the merged summary fetched in a run of its own before the optimizer's (fetched together, a weight
# histogram reads its variable before or after Adam's in-place update, differently from one TensorFlow run to the
# next); random.seed(777); the writer closed and its event files read back at the end (what TensorBoard would
# show).
import glob
import hashlib
import os
import random

import tensorflow.compat.v1 as tf

import input_data

tf.set_random_seed(777)  # reproducibility
random.seed(777)  # edit: the random test image

mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)

learning_rate = 0.001
training_epochs = 3  # edit: 15
batch_size = 100

CHECK_POINT_DIR = TB_SUMMARY_DIR = './tb/mnist2'

X = tf.placeholder(tf.float32, [None, 784])
Y = tf.placeholder(tf.float32, [None, 10])

x_image = tf.reshape(X, [-1, 28, 28, 1])
tf.summary.image('input', x_image, 3)

# dropout keep probability: 0.7 while training, 1 for testing
keep_prob = tf.placeholder(tf.float32)

xavier = tf.glorot_uniform_initializer  # edit: tf.contrib.layers.xavier_initializer

with tf.variable_scope('layer1'):
    W1 = tf.get_variable("W", shape=[784, 512], initializer=xavier())
    b1 = tf.Variable(tf.random_normal([512]))
    L1 = tf.nn.relu(tf.matmul(X, W1) + b1)
    L1 = tf.nn.dropout(L1, keep_prob=keep_prob)
    tf.summary.histogram("X", X)
    tf.summary.histogram("weights", W1)
    tf.summary.histogram("bias", b1)
    tf.summary.histogram("layer", L1)

with tf.variable_scope('layer2'):
    W2 = tf.get_variable("W", shape=[512, 512], initializer=xavier())
    b2 = tf.Variable(tf.random_normal([512]))
    L2 = tf.nn.relu(tf.matmul(L1, W2) + b2)
    L2 = tf.nn.dropout(L2, keep_prob=keep_prob)
    tf.summary.histogram("weights", W2)
    tf.summary.histogram("bias", b2)
    tf.summary.histogram("layer", L2)

with tf.variable_scope('layer3'):
    W3 = tf.get_variable("W", shape=[512, 512], initializer=xavier())
    b3 = tf.Variable(tf.random_normal([512]))
    L3 = tf.nn.relu(tf.matmul(L2, W3) + b3)
    L3 = tf.nn.dropout(L3, keep_prob=keep_prob)
    tf.summary.histogram("weights", W3)
    tf.summary.histogram("bias", b3)
    tf.summary.histogram("layer", L3)

with tf.variable_scope('layer4'):
    W4 = tf.get_variable("W", shape=[512, 512], initializer=xavier())
    b4 = tf.Variable(tf.random_normal([512]))
    L4 = tf.nn.relu(tf.matmul(L3, W4) + b4)
    L4 = tf.nn.dropout(L4, keep_prob=keep_prob)
    tf.summary.histogram("weights", W4)
    tf.summary.histogram("bias", b4)
    tf.summary.histogram("layer", L4)

with tf.variable_scope('layer5'):
    W5 = tf.get_variable("W", shape=[512, 10], initializer=xavier())
    b5 = tf.Variable(tf.random_normal([10]))
    hypothesis = tf.matmul(L4, W5) + b5
    tf.summary.histogram("weights", W5)
    tf.summary.histogram("bias", b5)
    tf.summary.histogram("hypothesis", hypothesis)

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=hypothesis, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(cost)

tf.summary.scalar("loss", cost)

last_epoch = tf.Variable(0, name='last_epoch')

summary = tf.summary.merge_all()

sess = tf.Session()
sess.run(tf.global_variables_initializer())

writer = tf.summary.FileWriter(TB_SUMMARY_DIR)
writer.add_graph(sess.graph)
global_step = 0

saver = tf.train.Saver()
checkpoint = tf.train.get_checkpoint_state(CHECK_POINT_DIR)

if checkpoint and checkpoint.model_checkpoint_path:
    try:
        saver.restore(sess, checkpoint.model_checkpoint_path)
        print("Successfully loaded:", checkpoint.model_checkpoint_path)
    except:  # noqa: E722  (as written)
        print("Error on loading old network weights")
else:
    print("Could not find old network weights")

start_from = sess.run(last_epoch)

print('Start learning from:', start_from)

for epoch in range(start_from, training_epochs):
    print('Start Epoch:', epoch)

    avg_cost = 0
    total_batch = int(400 / batch_size)  # edit: mnist.train.num_examples

    for i in range(total_batch):
        batch_xs, batch_ys = mnist.train.next_batch(batch_size)
        feed_dict = {X: batch_xs, Y: batch_ys, keep_prob: 0.7}
        s = sess.run(summary, feed_dict=feed_dict)  # edit: s, _ = sess.run([summary, optimizer], ...)
        sess.run(optimizer, feed_dict=feed_dict)
        writer.add_summary(s, global_step=global_step)
        global_step += 1

        avg_cost += sess.run(cost, feed_dict=feed_dict) / total_batch

    print('Epoch:', '%04d' % (epoch + 1), 'cost =', '{:.9f}'.format(avg_cost))

    print("Saving network...")
    sess.run(last_epoch.assign(epoch + 1))
    if not os.path.exists(CHECK_POINT_DIR):
        os.makedirs(CHECK_POINT_DIR)
    saver.save(sess, CHECK_POINT_DIR + "/model", global_step=i)

print('Learning Finished!')

correct_prediction = tf.equal(tf.argmax(hypothesis, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
print('Accuracy:', sess.run(accuracy, feed_dict={X: mnist.test.images, Y: mnist.test.labels, keep_prob: 1}))

r = random.randint(0, mnist.test.num_examples - 1)
print("Label: ", sess.run(tf.argmax(mnist.test.labels[r:r + 1], 1)))
print("Prediction: ", sess.run(tf.argmax(hypothesis, 1), feed_dict={X: mnist.test.images[r:r + 1], keep_prob: 1}))

# edit: what TensorBoard would read, and what the checkpoint directory holds
writer.close()
print("checkpoints:", tf.train.get_checkpoint_state(CHECK_POINT_DIR).all_model_checkpoint_paths)
print("files:", sorted(name for name in os.listdir(CHECK_POINT_DIR) if not name.startswith("events")))
event_files = sorted(glob.glob(TB_SUMMARY_DIR + "/events.out.tfevents.*"), key=os.path.getmtime)
events = list(tf.train.summary_iterator(event_files[-1]))
graphs = [tf.GraphDef.FromString(e.graph_def) for e in events if e.graph_def]
print("event files:", len(event_files), "events:", len(events), "graph nodes:", [len(g.node) for g in graphs])
summaries = [e for e in events if e.HasField("summary")]
if summaries:
    first = summaries[0].summary.value
    print("steps", summaries[0].step, "to", summaries[-1].step, "tags:", [v.tag for v in first])
    for v in first:
        if v.HasField("image"):
            print(v.tag, v.image.height, v.image.width, v.image.colorspace,
                  hashlib.md5(v.image.encoded_image_string).hexdigest())
        elif v.HasField("histo"):
            print(v.tag, v.histo.min, v.histo.max, v.histo.num, v.histo.sum, len(v.histo.bucket))
        else:
            print(v.tag, v.simple_value)
