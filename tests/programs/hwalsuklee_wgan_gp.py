# WGAN-GP on MNIST as Hwalsuk Lee's collection of generative models trains it: an infoGAN-shaped critic and
# generator (conv2d / conv2d_transpose / linear layers from carpedm20's DCGAN ops, batch normalization that updates
# its moving averages as it runs), the Wasserstein losses, and the gradient penalty: tf.gradients of the critic
# at random interpolates between real and generated images, whose norm enters the critic's loss, so the critic's
# Adam differentiates through a gradient (second derivatives of conv2d, batch norm, maximum and matmul).
# After: hwalsuklee/tensorflow-generative-model-collections, main.py + WGAN_GP.py + ops.py + utils.py (Apache 2.0,
# Hwalsuk Lee): the same argparse options and check_args, the same ops (bn, conv2d with get_variable 'w' and
# 'biases' and bias_add, deconv2d by tf.nn.conv2d_transpose to a given output_shape, lrelu as tf.maximum(x, 0.2x),
# linear with 'Matrix' and 'bias'), the same WGAN_GP class (discriminator and generator under variable_scope
# reuse, d_loss = -mean(D_real_logits) + mean(D_fake_logits) + lambd * the gradient penalty with alpha from
# tf.random_uniform(shape=inputs.get_shape()), var lists by 'd_' / 'g_' in the names, two Adams built under
# control_dependencies(UPDATE_OPS), the generator's at 5x the rate, fake_images from a second, non-training
# generator, merged scalar summaries, a Saver, the epoch loop over batches with the progress line, samples every
# few steps, save/load with the counter read back from the checkpoint's name), and main's Session with
# ConfigProto(allow_soft_placement=True), show_all_variables, train and visualize_results.
# Rewritten for this project rather than copied. Edits (each marked "edit:" below): the import line; load_mnist's
# gzip files -> the local MNIST stand-in (48 training images reshaped to 28x28x1, shuffled with the original's
# seed 547); the command line -> parse_args(["--gan_type", "WGAN_GP", "--epoch", "1", "--batch_size", "8",
# "--z_dim", "8"]) and of main's gan_type switch only its WGAN_GP branch; the layers narrowed (critic 64/128
# filters and 1024 units -> 8/16 and 32, generator 1024 units and 128x7x7 -> 32 and 16x7x7, its deconv 64 -> 8
# filters); samples every 5 steps, not 300; tf.set_random_seed(547) (the original's weights and alpha are
# unseeded); tf.contrib.layers.batch_norm(decay=0.9, updates_collections=None, epsilon=1e-5, scale=True) written
# out as contrib ran it (beta, gamma, moving_mean and moving_variance under the scope, tf.nn.fused_batch_norm on
# [N, 1, 1, C] for 2-D inputs, the moving averages assign_sub'ed (decay 0.9) before the output is returned when
# training); slim.model_analyzer.analyze_vars written out (the same table); scipy.misc.imsave (gone from SciPy) ->
# the merged sample grid's mean printed; the progress line's elapsed time left out; d_optim built under
# control_dependencies([d_loss]): the d_loss (and d_sum) fetched with d_optim read the critic's last layer in the
# run that updates it (its gradient does not need that layer's output), and which weights TF reads then depends on
# its scheduler (with grappler on or off, and as its cost estimates change, it prints the loss before or after the
# update). One epoch, not more: the critic's batch norm over near-identical generated images amplifies float32
# rounding, so TensorFlow with and without oneDNN drift apart by 1e-3 within a second epoch (by 6e-5 within the
# first; ours from TF by 4e-5). The program runs twice: the second run finds the checkpoint and only tests, as a
# restarted main.py does.
import argparse
import os
import re

import numpy as np
import tensorflow.compat.v1 as tf

import input_data


# ---- ops.py
def bn(x, is_training, scope):
    """edit: tf.contrib.layers.batch_norm(x, decay=0.9, updates_collections=None, epsilon=1e-5, scale=True,
    is_training=is_training, scope=scope), written out as contrib ran it (its fused path)."""
    decay, epsilon = 0.9, 1e-5
    with tf.variable_scope(scope, 'BatchNorm', [x]):
        original_shape = x.get_shape()
        if original_shape.ndims == 2:  # fused batch norm wants 4-D inputs
            x4 = tf.reshape(x, [-1, 1, 1, original_shape[1]])
        else:
            x4 = x
        params_shape = original_shape[-1:]
        beta = tf.get_variable('beta', params_shape, initializer=tf.zeros_initializer())
        gamma = tf.get_variable('gamma', params_shape, initializer=tf.ones_initializer())
        moving_mean = tf.get_variable('moving_mean', params_shape, initializer=tf.zeros_initializer(),
                                      trainable=False)
        moving_variance = tf.get_variable('moving_variance', params_shape, initializer=tf.ones_initializer(),
                                          trainable=False)
        if is_training:
            outputs, mean, variance = tf.nn.fused_batch_norm(x4, gamma, beta, epsilon=epsilon)
            # updates_collections=None: the moving averages are updated before the output is used
            with tf.name_scope('AssignMovingAvg'):
                update_mean = tf.assign_sub(moving_mean, (moving_mean - mean) * (1.0 - decay))
            with tf.name_scope('AssignMovingAvg_1'):
                update_variance = tf.assign_sub(moving_variance, (moving_variance - variance) * (1.0 - decay))
            with tf.control_dependencies([update_mean, update_variance]):
                outputs = tf.identity(outputs)
        else:
            outputs, _, _ = tf.nn.fused_batch_norm(x4, gamma, beta, mean=moving_mean, variance=moving_variance,
                                                   epsilon=epsilon, is_training=False)
        if original_shape.ndims == 2:
            outputs = tf.reshape(outputs, tf.shape(x))
        outputs.set_shape(original_shape)
        return outputs


def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
    with tf.variable_scope(name):
        w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim],
                            initializer=tf.truncated_normal_initializer(stddev=stddev))
        conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
        biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
        conv = tf.nn.bias_add(conv, biases)
        return conv


def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, name="deconv2d", stddev=0.02, with_w=False):
    with tf.variable_scope(name):
        output_shape_chan = output_shape[-1]
        if output_shape[0] is None:
            batch_size = tf.shape(input_)[0]
            output_shape = tf.stack([batch_size] + output_shape[1:])
        # filter: [height, width, output_channels, in_channels]
        w = tf.get_variable('w', [k_h, k_w, output_shape_chan, input_.get_shape()[-1]],
                            initializer=tf.random_normal_initializer(stddev=stddev))
        deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
        biases = tf.get_variable('biases', [output_shape_chan], initializer=tf.constant_initializer(0.0))
        deconv = tf.nn.bias_add(deconv, biases)
        if with_w:
            return deconv, w, biases
        return deconv


def lrelu(x, leak=0.2, name="lrelu"):
    return tf.maximum(x, leak * x)


def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0, with_w=False):
    shape = input_.get_shape().as_list()
    with tf.variable_scope(scope or "Linear"):
        matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32,
                                 tf.random_normal_initializer(stddev=stddev))
        bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(bias_start))
        if with_w:
            return tf.matmul(input_, matrix) + bias, matrix, bias
        return tf.matmul(input_, matrix) + bias


# ---- utils.py
def load_mnist(dataset_name):
    """edit: the local MNIST stand-in in place of the gzip files: images (28, 28, 1) in [0, 1] and one-hot labels,
    shuffled alike with the original's seed."""
    mnist = input_data.read_data_sets(os.path.join("data", dataset_name), one_hot=True)
    X = mnist.train.images[:48].reshape((-1, 28, 28, 1)).astype(np.float64)
    y_vec = mnist.train.labels[:48].astype(np.float64)
    seed = 547
    np.random.seed(seed)
    np.random.shuffle(X)
    np.random.seed(seed)
    np.random.shuffle(y_vec)
    return X, y_vec


def check_folder(log_dir):
    if not os.path.exists(log_dir):
        os.makedirs(log_dir)
    return log_dir


def show_all_variables():
    """edit: slim.model_analyzer.analyze_vars(tf.trainable_variables(), print_info=True), written out."""
    print('---------')
    print('Variables: name (type shape) [size]')
    print('---------')
    total_size = total_bytes = 0
    for var in tf.trainable_variables():
        var_size = var.get_shape().num_elements() or 0
        var_bytes = var_size * var.dtype.size
        total_size += var_size
        total_bytes += var_bytes
        description = '(' + str(var.dtype.name) + ' ' + 'x'.join(str(size) for size in var.get_shape()) + ')'
        print(var.name, description, '[%d, bytes: %d]' % (var_size, var_bytes))
    print('Total size of variables: %d' % total_size)
    print('Total bytes of variables: %d' % total_bytes)


def merge(images, size):
    h, w = images.shape[1], images.shape[2]
    img = np.zeros((h * size[0], w * size[1]))
    for idx, image in enumerate(images):
        i = idx % size[1]
        j = idx // size[1]
        img[j * h:j * h + h, i * w:i * w + w] = image[:, :, 0]
    return img


def inverse_transform(images):
    return (images + 1.) / 2.


def save_images(images, size, image_path):
    """edit: scipy.misc.imsave(path, merge(...)) -> the merged grid's mean printed."""
    image = np.squeeze(merge(inverse_transform(images), size))
    print(os.path.basename(image_path), image.shape, "mean %.6f" % image.mean())


# ---- WGAN_GP.py
class WGAN_GP(object):
    model_name = "WGAN_GP"  # name for checkpoint

    def __init__(self, sess, epoch, batch_size, z_dim, dataset_name, checkpoint_dir, result_dir, log_dir):
        self.sess = sess
        self.dataset_name = dataset_name
        self.checkpoint_dir = checkpoint_dir
        self.result_dir = result_dir
        self.log_dir = log_dir
        self.epoch = epoch
        self.batch_size = batch_size

        if dataset_name == 'mnist' or dataset_name == 'fashion-mnist':
            self.input_height = 28
            self.input_width = 28
            self.output_height = 28
            self.output_width = 28

            self.z_dim = z_dim  # dimension of noise-vector
            self.c_dim = 1

            # WGAN_GP parameter
            self.lambd = 0.25  # higher: more stable, slower convergence
            self.disc_iters = 1  # critic iterations per generator step

            # train
            self.learning_rate = 0.0002
            self.beta1 = 0.5

            # test
            self.sample_num = 64  # number of generated images to be saved

            self.data_X, self.data_y = load_mnist(self.dataset_name)
            self.num_batches = len(self.data_X) // self.batch_size
        else:
            raise NotImplementedError

    def discriminator(self, x, is_training=True, reuse=False):
        # infoGAN's architecture: (64)4c2s-(128)4c2s_BL-FC1024_BL-FC1_S, narrower (edit)
        with tf.variable_scope("discriminator", reuse=reuse):
            net = lrelu(conv2d(x, 8, 4, 4, 2, 2, name='d_conv1'))
            net = lrelu(bn(conv2d(net, 16, 4, 4, 2, 2, name='d_conv2'), is_training=is_training, scope='d_bn2'))
            net = tf.reshape(net, [self.batch_size, -1])
            net = lrelu(bn(linear(net, 32, scope='d_fc3'), is_training=is_training, scope='d_bn3'))
            out_logit = linear(net, 1, scope='d_fc4')
            out = tf.nn.sigmoid(out_logit)
            return out, out_logit, net

    def generator(self, z, is_training=True, reuse=False):
        # infoGAN's architecture: FC1024_BR-FC7x7x128_BR-(64)4dc2s_BR-(1)4dc2s_S, narrower (edit)
        with tf.variable_scope("generator", reuse=reuse):
            net = tf.nn.relu(bn(linear(z, 32, scope='g_fc1'), is_training=is_training, scope='g_bn1'))
            net = tf.nn.relu(bn(linear(net, 16 * 7 * 7, scope='g_fc2'), is_training=is_training, scope='g_bn2'))
            net = tf.reshape(net, [self.batch_size, 7, 7, 16])
            net = tf.nn.relu(bn(deconv2d(net, [self.batch_size, 14, 14, 8], 4, 4, 2, 2, name='g_dc3'),
                                is_training=is_training, scope='g_bn3'))
            out = tf.nn.sigmoid(deconv2d(net, [self.batch_size, 28, 28, 1], 4, 4, 2, 2, name='g_dc4'))
            return out

    def build_model(self):
        image_dims = [self.input_height, self.input_width, self.c_dim]
        bs = self.batch_size

        # graph inputs: images and noises
        self.inputs = tf.placeholder(tf.float32, [bs] + image_dims, name='real_images')
        self.z = tf.placeholder(tf.float32, [bs, self.z_dim], name='z')

        # the critic on real images and on generated ones
        D_real, D_real_logits, _ = self.discriminator(self.inputs, is_training=True, reuse=False)
        G = self.generator(self.z, is_training=True, reuse=False)
        D_fake, D_fake_logits, _ = self.discriminator(G, is_training=True, reuse=True)

        d_loss_real = - tf.reduce_mean(D_real_logits)
        d_loss_fake = tf.reduce_mean(D_fake_logits)
        self.d_loss = d_loss_real + d_loss_fake
        self.g_loss = - d_loss_fake

        # the gradient penalty, at random points between real and generated images
        alpha = tf.random_uniform(shape=self.inputs.get_shape(), minval=0., maxval=1.)
        differences = G - self.inputs
        interpolates = self.inputs + (alpha * differences)
        _, D_inter, _ = self.discriminator(interpolates, is_training=True, reuse=True)
        gradients = tf.gradients(D_inter, [interpolates])[0]
        slopes = tf.sqrt(tf.reduce_sum(tf.square(gradients), reduction_indices=[1]))
        gradient_penalty = tf.reduce_mean((slopes - 1.) ** 2)
        self.d_loss += self.lambd * gradient_penalty

        # the trainable variables of D and of G
        t_vars = tf.trainable_variables()
        d_vars = [var for var in t_vars if 'd_' in var.name]
        g_vars = [var for var in t_vars if 'g_' in var.name]

        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            with tf.control_dependencies([self.d_loss]):  # edit: the loss printed is the batch's (see the header)
                self.d_optim = tf.train.AdamOptimizer(self.learning_rate, beta1=self.beta1) \
                    .minimize(self.d_loss, var_list=d_vars)
            self.g_optim = tf.train.AdamOptimizer(self.learning_rate * 5, beta1=self.beta1) \
                .minimize(self.g_loss, var_list=g_vars)

        # for test
        self.fake_images = self.generator(self.z, is_training=False, reuse=True)

        d_loss_real_sum = tf.summary.scalar("d_loss_real", d_loss_real)
        d_loss_fake_sum = tf.summary.scalar("d_loss_fake", d_loss_fake)
        d_loss_sum = tf.summary.scalar("d_loss", self.d_loss)
        g_loss_sum = tf.summary.scalar("g_loss", self.g_loss)
        self.g_sum = tf.summary.merge([d_loss_fake_sum, g_loss_sum])
        self.d_sum = tf.summary.merge([d_loss_real_sum, d_loss_sum])

    def train(self):
        tf.global_variables_initializer().run()

        # graph inputs for visualizing training results
        self.sample_z = np.random.uniform(-1, 1, size=(self.batch_size, self.z_dim))

        self.saver = tf.train.Saver()
        self.writer = tf.summary.FileWriter(self.log_dir + '/' + self.model_name, self.sess.graph)

        # restore a checkpoint if there is one
        could_load, checkpoint_counter = self.load(self.checkpoint_dir)
        if could_load:
            start_epoch = (int)(checkpoint_counter / self.num_batches)
            start_batch_id = checkpoint_counter - start_epoch * self.num_batches
            counter = checkpoint_counter
            print(" [*] Load SUCCESS")
        else:
            start_epoch = 0
            start_batch_id = 0
            counter = 1
            print(" [!] Load failed...")

        for epoch in range(start_epoch, self.epoch):
            for idx in range(start_batch_id, self.num_batches):
                batch_images = self.data_X[idx * self.batch_size:(idx + 1) * self.batch_size]
                batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)

                # update D network
                _, summary_str, d_loss = self.sess.run([self.d_optim, self.d_sum, self.d_loss],
                                                       feed_dict={self.inputs: batch_images, self.z: batch_z})
                self.writer.add_summary(summary_str, counter)

                # update G network
                if (counter - 1) % self.disc_iters == 0:
                    batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)
                    _, summary_str, g_loss = self.sess.run([self.g_optim, self.g_sum, self.g_loss],
                                                           feed_dict={self.z: batch_z})
                    self.writer.add_summary(summary_str, counter)

                counter += 1

                # edit: the elapsed time left out
                print("Epoch: [%2d] [%4d/%4d] d_loss: %.8f, g_loss: %.8f" % (epoch, idx, self.num_batches, d_loss,
                                                                              g_loss))

                # samples every few steps
                if np.mod(counter, 5) == 0:  # edit: 300
                    samples = self.sess.run(self.fake_images, feed_dict={self.z: self.sample_z})
                    tot_num_samples = min(self.sample_num, self.batch_size)
                    manifold_h = int(np.floor(np.sqrt(tot_num_samples)))
                    manifold_w = int(np.floor(np.sqrt(tot_num_samples)))
                    save_images(samples[:manifold_h * manifold_w, :, :, :], [manifold_h, manifold_w],
                                './' + check_folder(self.result_dir + '/' + self.model_dir) + '/' + self.model_name +
                                '_train_{:02d}_{:04d}.png'.format(epoch, idx))

            # only the first epoch after loading a checkpoint starts inside an epoch
            start_batch_id = 0

            self.save(self.checkpoint_dir, counter)
            self.visualize_results(epoch)

        # save model for final step
        self.save(self.checkpoint_dir, counter)

    def visualize_results(self, epoch):
        tot_num_samples = min(self.sample_num, self.batch_size)
        image_frame_dim = int(np.floor(np.sqrt(tot_num_samples)))

        # random noise
        z_sample = np.random.uniform(-1, 1, size=(self.batch_size, self.z_dim))
        samples = self.sess.run(self.fake_images, feed_dict={self.z: z_sample})
        save_images(samples[:image_frame_dim * image_frame_dim, :, :, :], [image_frame_dim, image_frame_dim],
                    check_folder(self.result_dir + '/' + self.model_dir) + '/' + self.model_name +
                    '_epoch%03d' % epoch + '_test_all_classes.png')

    @property
    def model_dir(self):
        return "{}_{}_{}_{}".format(self.model_name, self.dataset_name, self.batch_size, self.z_dim)

    def save(self, checkpoint_dir, step):
        checkpoint_dir = os.path.join(checkpoint_dir, self.model_dir, self.model_name)
        if not os.path.exists(checkpoint_dir):
            os.makedirs(checkpoint_dir)
        self.saver.save(self.sess, os.path.join(checkpoint_dir, self.model_name + '.model'), global_step=step)

    def load(self, checkpoint_dir):
        print(" [*] Reading checkpoints...")
        checkpoint_dir = os.path.join(checkpoint_dir, self.model_dir, self.model_name)

        ckpt = tf.train.get_checkpoint_state(checkpoint_dir)
        if ckpt and ckpt.model_checkpoint_path:
            ckpt_name = os.path.basename(ckpt.model_checkpoint_path)
            self.saver.restore(self.sess, os.path.join(checkpoint_dir, ckpt_name))
            counter = int(next(re.finditer(r"(\d+)(?!.*\d)", ckpt_name)).group(0))
            print(" [*] Success to read {}".format(ckpt_name))
            return True, counter
        else:
            print(" [*] Failed to find a checkpoint")
            return False, 0


# ---- main.py
def parse_args():
    desc = "Tensorflow implementation of GAN collections"
    parser = argparse.ArgumentParser(description=desc)
    parser.add_argument('--gan_type', type=str, default='GAN',
                        choices=['GAN', 'CGAN', 'infoGAN', 'ACGAN', 'EBGAN', 'BEGAN', 'WGAN', 'WGAN_GP', 'DRAGAN',
                                 'LSGAN', 'VAE', 'CVAE'], help='The type of GAN', required=True)
    parser.add_argument('--dataset', type=str, default='mnist', choices=['mnist', 'fashion-mnist', 'celebA'],
                        help='The name of dataset')
    parser.add_argument('--epoch', type=int, default=20, help='The number of epochs to run')
    parser.add_argument('--batch_size', type=int, default=64, help='The size of batch')
    parser.add_argument('--z_dim', type=int, default=62, help='Dimension of noise vector')
    parser.add_argument('--checkpoint_dir', type=str, default='checkpoint',
                        help='Directory name to save the checkpoints')
    parser.add_argument('--result_dir', type=str, default='results', help='Directory name to save the generated '
                                                                           'images')
    parser.add_argument('--log_dir', type=str, default='logs', help='Directory name to save training logs')
    # edit: a fixed command line
    return check_args(parser.parse_args(["--gan_type", "WGAN_GP", "--epoch", "1", "--batch_size", "8",
                                         "--z_dim", "8"]))


def check_args(args):
    check_folder(args.checkpoint_dir)
    check_folder(args.result_dir)
    check_folder(args.log_dir)
    try:
        assert args.epoch >= 1
    except AssertionError:
        print('number of epochs must be larger than or equal to one')
    try:
        assert args.batch_size >= 1
    except AssertionError:
        print('batch size must be larger than or equal to one')
    try:
        assert args.z_dim >= 1
    except AssertionError:
        print('dimension of noise vector must be larger than or equal to one')
    return args


def main():
    args = parse_args()
    if args is None:
        exit()

    tf.set_random_seed(547)  # edit: seeded
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        if args.gan_type == 'WGAN_GP':
            gan = WGAN_GP(sess, epoch=args.epoch, batch_size=args.batch_size, z_dim=args.z_dim,
                          dataset_name=args.dataset, checkpoint_dir=args.checkpoint_dir,
                          result_dir=args.result_dir, log_dir=args.log_dir)
        else:
            raise Exception("[!] There is no option for " + args.gan_type)

        gan.build_model()

        show_all_variables()

        gan.train()
        print(" [*] Training finished!")

        gan.visualize_results(args.epoch - 1)
        print(" [*] Testing finished!")


if __name__ == '__main__':
    main()
