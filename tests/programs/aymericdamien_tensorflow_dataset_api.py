# A tf.data input pipeline feeding a tf.layers CNN: numpy arrays through placeholders into
# Dataset.from_tensor_slices, batch, an initializable iterator re-initialized on OutOfRangeError, and two
# towers sharing weights under variable_scope reuse (dropout on for training, off for testing).
# After: aymericdamien/TensorFlow-Examples, examples/5_DataManagement/tensorflow_dataset_api.py (MIT
# license, Aymeric Damien): same conv_net() (reshape to 28x28x1, conv2d 32@5 + max_pooling2d 2/2, conv2d 64@3
# + max_pooling2d, flatten, dense 1024, dropout 0.75, dense 10, softmax on the test tower), Adam(0.001),
# "Step N, Minibatch Loss= ..., Training Accuracy= ..." lines. Rewritten for this project rather than
# copied (Python 3). Edits: the import line; tf.contrib.data -> tf.data, tf.contrib.layers.flatten ->
# tf.layers.flatten (their TF1.x homes); MNIST -> the local stand-in `input_data` cut to 256 training
# images; 2000 steps of 128 -> 12 of 32 (display every 4, so the iterator wraps around once); dense 1024 ->
# 128 (speed); tf.set_random_seed(17).
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(17)
train_images, train_labels = mnist.train.images[:256], mnist.train.labels[:256]

learning_rate = 0.001
num_steps = 12
batch_size = 32
display_step = 4

n_input = 784
n_classes = 10
dropout = 0.75

sess = tf.Session()

_data = tf.placeholder(tf.float32, [None, n_input])
_labels = tf.placeholder(tf.float32, [None, n_classes])
dataset = tf.data.Dataset.from_tensor_slices((_data, _labels))
dataset = dataset.batch(batch_size)
iterator = dataset.make_initializable_iterator()
sess.run(iterator.initializer, feed_dict={_data: train_images, _labels: train_labels})

X, Y = iterator.get_next()


def conv_net(x, n_classes, dropout, reuse, is_training):
    with tf.variable_scope('ConvNet', reuse=reuse):
        x = tf.reshape(x, shape=[-1, 28, 28, 1])
        conv1 = tf.layers.conv2d(x, 32, 5, activation=tf.nn.relu)
        conv1 = tf.layers.max_pooling2d(conv1, 2, 2)
        conv2 = tf.layers.conv2d(conv1, 64, 3, activation=tf.nn.relu)
        conv2 = tf.layers.max_pooling2d(conv2, 2, 2)
        fc1 = tf.layers.flatten(conv2)
        fc1 = tf.layers.dense(fc1, 128)
        fc1 = tf.layers.dropout(fc1, rate=dropout, training=is_training)
        out = tf.layers.dense(fc1, n_classes)
        out = tf.nn.softmax(out) if not is_training else out
    return out


logits_train = conv_net(X, n_classes, dropout, reuse=False, is_training=True)
logits_test = conv_net(X, n_classes, dropout, reuse=True, is_training=False)

loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits_train, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

correct_pred = tf.equal(tf.argmax(logits_test, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

init = tf.global_variables_initializer()
sess.run(init)

for step in range(1, num_steps + 1):
    try:
        sess.run(train_op)
    except tf.errors.OutOfRangeError:
        sess.run(iterator.initializer, feed_dict={_data: train_images, _labels: train_labels})
        print("Step " + str(step) + ": iterator re-initialized")
        sess.run(train_op)
    if step % display_step == 0 or step == 1:
        loss, acc = sess.run([loss_op, accuracy])
        print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss)
              + ", Training Accuracy= " + "{:.3f}".format(acc))

print("Optimization Finished!")
print("variables:", [v.name for v in tf.trainable_variables()])
