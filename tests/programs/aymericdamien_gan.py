# A generative adversarial network on MNIST: a 100-256-784 generator and a 784-256-1 discriminator from
# Glorot-scaled random_normal weights, trained alternately with two Adam optimizers over disjoint var_lists.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/gan.py (MIT license, Aymeric Damien):
# same glorot_init (random_normal with stddev 1 / tf.sqrt(shape[0] / 2.)), weights/biases dicts, ReLU hidden
# and sigmoid outputs, gen_loss = -mean(log D(G(z))), disc_loss = -mean(log D(x) + log(1 - D(G(z)))),
# AdamOptimizer(0.0002) twice, "Step i: Generator Loss: ..., Discriminator Loss: ..." lines. Rewritten for
# this project rather than copied (Python 3). Edits: the import line; MNIST -> the local stand-in
# `input_data`; 100000 steps of 128 -> 30 of 32 (reported every 10); np.reshape(g, newshape=...) -> positional (numpy 2); the noise from a seeded
# np.random.RandomState; tf.set_random_seed(11); the two training ops in separate sess.run calls (in one
# call TF runs them in parallel, and whether one reads the other's variables before or after their update
# varies run to run); the matplotlib sample grid -> the mean and range of 4
# generated images.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(11)
rng = np.random.RandomState(11)

num_steps = 30
batch_size = 32
learning_rate = 0.0002

image_dim = 784
gen_hidden_dim = 256
disc_hidden_dim = 256
noise_dim = 100


def glorot_init(shape):
    return tf.random_normal(shape=shape, stddev=1. / tf.sqrt(shape[0] / 2.))


weights = {
    'gen_hidden1': tf.Variable(glorot_init([noise_dim, gen_hidden_dim])),
    'gen_out': tf.Variable(glorot_init([gen_hidden_dim, image_dim])),
    'disc_hidden1': tf.Variable(glorot_init([image_dim, disc_hidden_dim])),
    'disc_out': tf.Variable(glorot_init([disc_hidden_dim, 1])),
}
biases = {
    'gen_hidden1': tf.Variable(tf.zeros([gen_hidden_dim])),
    'gen_out': tf.Variable(tf.zeros([image_dim])),
    'disc_hidden1': tf.Variable(tf.zeros([disc_hidden_dim])),
    'disc_out': tf.Variable(tf.zeros([1])),
}


def generator(x):
    hidden_layer = tf.nn.relu(tf.add(tf.matmul(x, weights['gen_hidden1']), biases['gen_hidden1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(hidden_layer, weights['gen_out']), biases['gen_out']))


def discriminator(x):
    hidden_layer = tf.nn.relu(tf.add(tf.matmul(x, weights['disc_hidden1']), biases['disc_hidden1']))
    return tf.nn.sigmoid(tf.add(tf.matmul(hidden_layer, weights['disc_out']), biases['disc_out']))


gen_input = tf.placeholder(tf.float32, shape=[None, noise_dim], name='input_noise')
disc_input = tf.placeholder(tf.float32, shape=[None, image_dim], name='disc_input')

gen_sample = generator(gen_input)
disc_real = discriminator(disc_input)
disc_fake = discriminator(gen_sample)

gen_loss = -tf.reduce_mean(tf.log(disc_fake))
disc_loss = -tf.reduce_mean(tf.log(disc_real) + tf.log(1. - disc_fake))

optimizer_gen = tf.train.AdamOptimizer(learning_rate=learning_rate)
optimizer_disc = tf.train.AdamOptimizer(learning_rate=learning_rate)

gen_vars = [weights['gen_hidden1'], weights['gen_out'], biases['gen_hidden1'], biases['gen_out']]
disc_vars = [weights['disc_hidden1'], weights['disc_out'], biases['disc_hidden1'], biases['disc_out']]

train_gen = optimizer_gen.minimize(gen_loss, var_list=gen_vars)
train_disc = optimizer_disc.minimize(disc_loss, var_list=disc_vars)

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, num_steps + 1):
        batch_x, _ = mnist.train.next_batch(batch_size)
        z = rng.uniform(-1., 1., size=[batch_size, noise_dim])
        feed_dict = {disc_input: batch_x, gen_input: z}
        _, dl = sess.run([train_disc, disc_loss], feed_dict=feed_dict)
        _, gl = sess.run([train_gen, gen_loss], feed_dict=feed_dict)
        if i % 10 == 0 or i == 1:
            print('Step %i: Generator Loss: %f, Discriminator Loss: %f' % (i, gl, dl))

    z = rng.uniform(-1., 1., size=[4, noise_dim])
    g = sess.run([gen_sample], feed_dict={gen_input: z})
    g = np.reshape(g, (4, 28, 28, 1))
    print("samples: mean %.5f min %.5f max %.5f" % (g.mean(), g.min(), g.max()))
