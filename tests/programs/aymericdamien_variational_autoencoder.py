# A variational autoencoder on MNIST (784-512-2 encoder, reparameterized Gaussian sample, 2-512-784 decoder),
# trained with RMSProp on reconstruction cross entropy plus KL divergence, then decoding a grid of latents.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/variational_autoencoder.py (MIT
# license, Aymeric Damien): same glorot_init, tanh layers, z = z_mean + exp(z_std / 2) * eps with eps =
# tf.random_normal(tf.shape(z_std), name='epsilon'), vae_loss, RMSPropOptimizer(0.001), "Step i, Loss: ..."
# lines and the rebuilt decoder fed a noise placeholder over a linspace(-3, 3) grid. Rewritten for this
# project rather than copied (Python 3). Edits: the import line; MNIST -> the local stand-in `input_data`;
# 30000 steps of 64 -> 40 (reported every 10); tf.set_random_seed(21); the 20x20 matplotlib manifold -> a
# 3x3 grid whose decoded images' means are printed.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(21)

learning_rate = 0.001
num_steps = 40
batch_size = 64

image_dim = 784
hidden_dim = 512
latent_dim = 2


def glorot_init(shape):
    return tf.random_normal(shape=shape, stddev=1. / tf.sqrt(shape[0] / 2.))


weights = {
    'encoder_h1': tf.Variable(glorot_init([image_dim, hidden_dim])),
    'z_mean': tf.Variable(glorot_init([hidden_dim, latent_dim])),
    'z_std': tf.Variable(glorot_init([hidden_dim, latent_dim])),
    'decoder_h1': tf.Variable(glorot_init([latent_dim, hidden_dim])),
    'decoder_out': tf.Variable(glorot_init([hidden_dim, image_dim])),
}
biases = {
    'encoder_b1': tf.Variable(glorot_init([hidden_dim])),
    'z_mean': tf.Variable(glorot_init([latent_dim])),
    'z_std': tf.Variable(glorot_init([latent_dim])),
    'decoder_b1': tf.Variable(glorot_init([hidden_dim])),
    'decoder_out': tf.Variable(glorot_init([image_dim])),
}

input_image = tf.placeholder(tf.float32, shape=[None, image_dim])
encoder = tf.nn.tanh(tf.matmul(input_image, weights['encoder_h1']) + biases['encoder_b1'])
z_mean = tf.matmul(encoder, weights['z_mean']) + biases['z_mean']
z_std = tf.matmul(encoder, weights['z_std']) + biases['z_std']

eps = tf.random_normal(tf.shape(z_std), dtype=tf.float32, mean=0., stddev=1.0, name='epsilon')
z = z_mean + tf.exp(z_std / 2) * eps

decoder = tf.nn.tanh(tf.matmul(z, weights['decoder_h1']) + biases['decoder_b1'])
decoder = tf.nn.sigmoid(tf.matmul(decoder, weights['decoder_out']) + biases['decoder_out'])


def vae_loss(x_reconstructed, x_true):
    encode_decode_loss = x_true * tf.log(1e-10 + x_reconstructed) \
        + (1 - x_true) * tf.log(1e-10 + 1 - x_reconstructed)
    encode_decode_loss = -tf.reduce_sum(encode_decode_loss, 1)
    kl_div_loss = 1 + z_std - tf.square(z_mean) - tf.exp(z_std)
    kl_div_loss = -0.5 * tf.reduce_sum(kl_div_loss, 1)
    return tf.reduce_mean(encode_decode_loss + kl_div_loss)


loss_op = vae_loss(decoder, input_image)
optimizer = tf.train.RMSPropOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, num_steps + 1):
        batch_x, _ = mnist.train.next_batch(batch_size)
        _, l = sess.run([train_op, loss_op], feed_dict={input_image: batch_x})
        if i % 10 == 0 or i == 1:
            print('Step %i, Loss: %f' % (i, l))

    noise_input = tf.placeholder(tf.float32, shape=[None, latent_dim])
    decoder = tf.nn.tanh(tf.matmul(noise_input, weights['decoder_h1']) + biases['decoder_b1'])
    decoder = tf.nn.sigmoid(tf.matmul(decoder, weights['decoder_out']) + biases['decoder_out'])

    n = 3
    x_axis = np.linspace(-3, 3, n)
    y_axis = np.linspace(-3, 3, n)
    for i, yi in enumerate(x_axis):
        row = []
        for j, xi in enumerate(y_axis):
            z_mu = np.array([[xi, yi]] * batch_size)
            x_mean = sess.run(decoder, feed_dict={noise_input: z_mu})
            row.append("%.5f" % x_mean[0].mean())
        print("decoded means, y=%.1f:" % yi, " ".join(row))
