# A two-hidden-layer perceptron built with tf.layers.dense (784-256-256-10) and trained with Adam.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/neural_network.py (MIT license,
# Aymeric Damien): same neural_net() of three tf.layers.dense calls (n_hidden_1 = n_hidden_2 = 256, linear),
# sparse_softmax_cross_entropy_with_logits on int labels, AdamOptimizer(0.1), argmax predictions and
# accuracy. Rewritten for this project rather than copied (Python 3). Edits: the import line; MNIST -> the
# local stand-in `input_data` (labels as class ids, one_hot=False); the tf.estimator wrapper (model_fn,
# input_fn, Estimator.train/evaluate) -> the same model and loss driven by a plain Session loop over
# placeholders (the emulator has no tf.estimator), 1000 steps -> 30 (loss every 10); tf.set_random_seed(23);
# the trained variables' names and shapes printed; Adam(0.1) -> Adam(0.001): on the synthetic data larger
# rates diverge (losses in the thousands) and float32 rounding differences then grow chaotically.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=False)
tf.set_random_seed(23)

learning_rate = 0.001
num_steps = 30
batch_size = 128

n_hidden_1 = 256
n_hidden_2 = 256
num_input = 784
num_classes = 10

images = tf.placeholder(tf.float32, [None, num_input], name='images')
labels = tf.placeholder(tf.int32, [None], name='labels')


def neural_net(x):
    layer_1 = tf.layers.dense(x, n_hidden_1)
    layer_2 = tf.layers.dense(layer_1, n_hidden_2)
    return tf.layers.dense(layer_2, num_classes)


logits = neural_net(images)
pred_classes = tf.argmax(logits, axis=1)
pred_probas = tf.nn.softmax(logits)

loss_op = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=logits, labels=tf.cast(labels, dtype=tf.int32)))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op, global_step=tf.train.get_or_create_global_step())
accuracy = tf.reduce_mean(tf.cast(tf.equal(pred_classes, tf.cast(labels, tf.int64)), tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, num_steps + 1):
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        _, loss = sess.run([train_op, loss_op], feed_dict={images: batch_x, labels: batch_y})
        if step % 10 == 0 or step == 1:
            print("global_step %d, loss = %.6f" % (sess.run(tf.train.get_global_step()), loss))
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={images: mnist.test.images,
                                                            labels: mnist.test.labels}))
    probas = sess.run(pred_probas, feed_dict={images: mnist.test.images[:3]})
    print("first test images: classes", probas.argmax(1).tolist(), "probabilities",
          " ".join("%.5f" % p for p in probas.max(1)))
for v in tf.trainable_variables():
    print(v.name, v.shape.as_list())
