# A two-layer convolutional network in raw TensorFlow ops: conv 5x5x32 + max-pool, conv 5x5x64 + max-pool,
# dense 1024 with dropout, Adam(0.001); minibatch loss and accuracy every few steps.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/convolutional_network_raw.py (MIT
# license, Aymeric Damien): same conv2d() wrapper (tf.nn.conv2d SAME + tf.nn.bias_add + tf.nn.relu),
# maxpool2d() (tf.nn.max_pool k=2 SAME), conv_net() with tf.reshape, the fully connected layer sized by
# get_shape().as_list(), tf.nn.dropout fed a keep probability, random_normal weights, "Iter N, Minibatch
# Loss= ..., Training Accuracy= ..." lines and the accuracy on 256 test images. Rewritten for this project
# rather than copied (Python 3). Edits: the import line; MNIST -> the local stand-in `input_data`;
# training_iters 200000 -> 12 steps of 32 images (display every 4); tf.set_random_seed(7) added so both
# runs draw the same weights and dropout masks.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(7)

learning_rate = 0.001
batch_size = 32
training_iters = 13 * batch_size
display_step = 4

n_input = 784
n_classes = 10
dropout = 0.75  # probability to keep units

X = tf.placeholder(tf.float32, [None, n_input])
Y = tf.placeholder(tf.float32, [None, n_classes])
keep_prob = tf.placeholder(tf.float32)


def conv2d(x, W, b, strides=1):
    x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding='SAME')
    x = tf.nn.bias_add(x, b)
    return tf.nn.relu(x)


def maxpool2d(x, k=2):
    return tf.nn.max_pool(x, ksize=[1, k, k, 1], strides=[1, k, k, 1], padding='SAME')


def conv_net(x, weights, biases, dropout):
    x = tf.reshape(x, shape=[-1, 28, 28, 1])  # [batch, height, width, channels]
    conv1 = maxpool2d(conv2d(x, weights['wc1'], biases['bc1']), k=2)
    conv2 = maxpool2d(conv2d(conv1, weights['wc2'], biases['bc2']), k=2)
    fc1 = tf.reshape(conv2, [-1, weights['wd1'].get_shape().as_list()[0]])
    fc1 = tf.nn.relu(tf.add(tf.matmul(fc1, weights['wd1']), biases['bd1']))
    fc1 = tf.nn.dropout(fc1, dropout)
    return tf.add(tf.matmul(fc1, weights['out']), biases['out'])


weights = {
    'wc1': tf.Variable(tf.random_normal([5, 5, 1, 32])),
    'wc2': tf.Variable(tf.random_normal([5, 5, 32, 64])),
    'wd1': tf.Variable(tf.random_normal([7 * 7 * 64, 1024])),
    'out': tf.Variable(tf.random_normal([1024, n_classes])),
}
biases = {
    'bc1': tf.Variable(tf.random_normal([32])),
    'bc2': tf.Variable(tf.random_normal([64])),
    'bd1': tf.Variable(tf.random_normal([1024])),
    'out': tf.Variable(tf.random_normal([n_classes])),
}

pred = conv_net(X, weights, biases, keep_prob)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

correct_pred = tf.equal(tf.argmax(pred, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    step = 1
    while step * batch_size < training_iters:
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y, keep_prob: dropout})
        if step % display_step == 0:
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y, keep_prob: 1.})
            print("Iter " + str(step * batch_size) + ", Minibatch Loss= " + "{:.6f}".format(loss)
                  + ", Training Accuracy= " + "{:.5f}".format(acc))
        step += 1
    print("Optimization Finished!")
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={X: mnist.test.images[:256],
                                                             Y: mnist.test.labels[:256], keep_prob: 1.}))
