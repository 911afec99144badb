# A sigmoid autoencoder (784-256-128-256-784) trained with RMSProp on the mean squared reconstruction error.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/autoencoder.py (MIT license,
# Aymeric Damien): same encoder/decoder of tf.nn.sigmoid(tf.add(tf.matmul(...))), loss
# reduce_mean(pow(y_true - y_pred, 2)), RMSPropOptimizer(0.01), "Step %i: Minibatch Loss: %f" lines.
# Rewritten for this project rather than copied (Python 3). Edits: the import line; MNIST -> the local
# stand-in `input_data`; 30000 steps -> 30 (display every 10); the matplotlib picture dropped;
# tf.set_random_seed(2) added so both runs start from the same random weights.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(2)

learning_rate = 0.01
num_steps = 30
batch_size = 256
display_step = 10

num_hidden_1 = 256
num_hidden_2 = 128
num_input = 784

X = tf.placeholder("float", [None, num_input])

weights = {
    'encoder_h1': tf.Variable(tf.random_normal([num_input, num_hidden_1])),
    'encoder_h2': tf.Variable(tf.random_normal([num_hidden_1, num_hidden_2])),
    'decoder_h1': tf.Variable(tf.random_normal([num_hidden_2, num_hidden_1])),
    'decoder_h2': tf.Variable(tf.random_normal([num_hidden_1, num_input])),
}
biases = {
    'encoder_b1': tf.Variable(tf.random_normal([num_hidden_1])),
    'encoder_b2': tf.Variable(tf.random_normal([num_hidden_2])),
    'decoder_b1': tf.Variable(tf.random_normal([num_hidden_1])),
    'decoder_b2': tf.Variable(tf.random_normal([num_input])),
}


def encoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights['encoder_h1']), biases['encoder_b1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights['encoder_h2']), biases['encoder_b2']))


def decoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights['decoder_h1']), biases['decoder_b1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights['decoder_h2']), biases['decoder_b2']))


encoder_op = encoder(X)
decoder_op = decoder(encoder_op)
y_pred = decoder_op
y_true = X

loss = tf.reduce_mean(tf.pow(y_true - y_pred, 2))
optimizer = tf.train.RMSPropOptimizer(learning_rate).minimize(loss)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, num_steps + 1):
        batch_x, _ = mnist.train.next_batch(batch_size)
        _, l = sess.run([optimizer, loss], feed_dict={X: batch_x})
        if i % display_step == 0 or i == 1:
            print('Step %i: Minibatch Loss: %f' % (i, l))

    batch_x, _ = mnist.test.next_batch(4)
    g = sess.run(decoder_op, feed_dict={X: batch_x})
    print("Reconstruction of 4 test digits, first pixels:", g[:, :3].round(4).tolist())
