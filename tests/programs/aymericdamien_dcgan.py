# A deep convolutional GAN: a dense + conv2d_transpose generator and a conv2d / average_pooling2d / dense
# discriminator, both tf.layers under variable_scopes (the discriminator reused three times), trained with
# sparse softmax cross entropy on real/fake targets and two Adam optimizers over the scopes' variables.
# After: aymericdamien/TensorFlow-Examples, examples/3_NeuralNetworks/dcgan.py (MIT license, Aymeric Damien):
# same generator() (dense 6*6*128, tanh, reshape, conv2d_transpose 64@4 stride 2, conv2d_transpose 1@2 stride
# 2, sigmoid), discriminator() (conv2d 64@5, tanh, average_pooling2d 2/2, conv2d 128@5, tanh, pooling,
# flatten, dense 1024, tanh, dense 2), disc_concat, gen/disc targets, tf.get_collection(TRAINABLE_VARIABLES,
# scope=...) var_lists, AdamOptimizer(0.001) twice, "Step i: Generator Loss: ..., Discriminator Loss: ..."
# lines. Rewritten for this project rather than copied (Python 3). Edits: the import line;
# tf.contrib.layers.flatten -> tf.layers.flatten; MNIST -> the local stand-in `input_data`; 20000 steps of
# 32 -> 4 of 8 (every step reported); discriminator widths 64/128/1024 -> 16/32/64 (speed); noise from a
# seeded np.random.RandomState; tf.set_random_seed(29); the two training ops in separate sess.run calls
# (in one call TF runs them in parallel, and whether one reads the other's variables before or after
# their update varies run to run); the matplotlib grid -> the generated images' mean.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(29)
rng = np.random.RandomState(29)

num_steps = 4
batch_size = 8
noise_dim = 200


def generator(x, reuse=False):
    with tf.variable_scope('Generator', reuse=reuse):
        x = tf.layers.dense(x, units=6 * 6 * 128)
        x = tf.nn.tanh(x)
        x = tf.reshape(x, shape=[-1, 6, 6, 128])
        x = tf.layers.conv2d_transpose(x, 64, 4, strides=2)
        x = tf.layers.conv2d_transpose(x, 1, 2, strides=2)
        x = tf.nn.sigmoid(x)
        return x


def discriminator(x, reuse=False):
    with tf.variable_scope('Discriminator', reuse=reuse):
        x = tf.layers.conv2d(x, 16, 5)
        x = tf.nn.tanh(x)
        x = tf.layers.average_pooling2d(x, 2, 2)
        x = tf.layers.conv2d(x, 32, 5)
        x = tf.nn.tanh(x)
        x = tf.layers.average_pooling2d(x, 2, 2)
        x = tf.layers.flatten(x)
        x = tf.layers.dense(x, 64)
        x = tf.nn.tanh(x)
        x = tf.layers.dense(x, 2)
    return x


noise_input = tf.placeholder(tf.float32, shape=[None, noise_dim])
real_image_input = tf.placeholder(tf.float32, shape=[None, 28, 28, 1])

gen_sample = generator(noise_input)
disc_real = discriminator(real_image_input)
disc_fake = discriminator(gen_sample, reuse=True)
disc_concat = tf.concat([disc_real, disc_fake], axis=0)
stacked_gan = discriminator(gen_sample, reuse=True)

disc_target = tf.placeholder(tf.int32, shape=[None])
gen_target = tf.placeholder(tf.int32, shape=[None])

disc_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=disc_concat, labels=disc_target))
gen_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    logits=stacked_gan, labels=gen_target))

optimizer_gen = tf.train.AdamOptimizer(learning_rate=0.001)
optimizer_disc = tf.train.AdamOptimizer(learning_rate=0.001)

gen_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='Generator')
disc_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope='Discriminator')
print("generator variables:", [(v.name, v.shape.as_list()) for v in gen_vars])
print("discriminator variables:", [v.name for v in disc_vars])

train_gen = optimizer_gen.minimize(gen_loss, var_list=gen_vars)
train_disc = optimizer_disc.minimize(disc_loss, var_list=disc_vars)

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, num_steps + 1):
        batch_x, _ = mnist.train.next_batch(batch_size)
        batch_x = np.reshape(batch_x, [-1, 28, 28, 1])
        z = rng.uniform(-1., 1., size=[batch_size, noise_dim])
        batch_disc_y = np.concatenate([np.ones([batch_size]), np.zeros([batch_size])], axis=0)
        batch_gen_y = np.ones([batch_size])
        feed_dict = {real_image_input: batch_x, noise_input: z,
                     disc_target: batch_disc_y, gen_target: batch_gen_y}
        _, dl = sess.run([train_disc, disc_loss], feed_dict=feed_dict)
        _, gl = sess.run([train_gen, gen_loss], feed_dict=feed_dict)
        print('Step %i: Generator Loss: %f, Discriminator Loss: %f' % (i, gl, dl))

    z = rng.uniform(-1., 1., size=[4, noise_dim])
    g = sess.run(gen_sample, feed_dict={noise_input: z})
    print("generated", g.shape, "mean %.5f" % g.mean())
