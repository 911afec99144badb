# Batch normalization written out by hand: a 784-100-100-100-10 ReLU network trained with and without it.
# After: udacity/deep-learning, batch-norm/Batch_Normalization_Lesson.ipynb (MIT license), the section
# "What are you hiding?": the NeuralNet class whose fully_connected layer drops the bias, keeps gamma/beta
# and non-trainable pop_mean/pop_variance Variables, and under tf.cond(is_training) either normalizes with
# tf.nn.moments(linear_output, [0]) while tf.assign-ing the 0.99 running averages (inside
# tf.control_dependencies) or normalizes with the population statistics, tf.nn.batch_normalization with
# epsilon 1e-3; the same starting weights for both networks, cross entropy with GradientDescent under the
# UPDATE_OPS control dependencies, accuracy on validation during training and on the test set with
# is_training False. Rewritten for this project rather than copied. Edits: the import line; MNIST -> the
# local stand-in `input_data`; 50000 batches of 60 -> 300, accuracy printed every 100 batches instead of
# plotted (no tqdm/matplotlib); one experiment, the lesson's train_and_test(False, 1, tf.nn.relu) with the
# learning rate 1 -> 0.1 (at 1 the plain network diverges chaotically on the stand-in data, and float32
# summation order alone picks its predictions); test() also prints the test cross entropy, which every
# weight and every population statistic moves; np.random.seed(0) for the starting weights.
import numpy as np
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)


class NeuralNet:
    def __init__(self, initial_weights, activation_fn, use_batch_norm):
        self.use_batch_norm = use_batch_norm
        self.name = "With Batch Norm" if use_batch_norm else "Without Batch Norm"
        self.is_training = tf.placeholder(tf.bool, name="is_training")
        self.input_layer = tf.placeholder(tf.float32, [None, initial_weights[0].shape[0]])
        layer_in = self.input_layer
        for weights in initial_weights[:-1]:
            layer_in = self.fully_connected(layer_in, weights, activation_fn)
        self.output_layer = self.fully_connected(layer_in, initial_weights[-1])

    def fully_connected(self, layer_in, initial_weights, activation_fn=None):
        if self.use_batch_norm and activation_fn:
            weights = tf.Variable(initial_weights)
            linear_output = tf.matmul(layer_in, weights)
            num_out_nodes = initial_weights.shape[-1]
            gamma = tf.Variable(tf.ones([num_out_nodes]))
            beta = tf.Variable(tf.zeros([num_out_nodes]))
            pop_mean = tf.Variable(tf.zeros([num_out_nodes]), trainable=False)
            pop_variance = tf.Variable(tf.ones([num_out_nodes]), trainable=False)
            epsilon = 1e-3

            def batch_norm_training():
                batch_mean, batch_variance = tf.nn.moments(linear_output, [0])
                decay = 0.99
                train_mean = tf.assign(pop_mean, pop_mean * decay + batch_mean * (1 - decay))
                train_variance = tf.assign(pop_variance, pop_variance * decay + batch_variance * (1 - decay))
                with tf.control_dependencies([train_mean, train_variance]):
                    return tf.nn.batch_normalization(linear_output, batch_mean, batch_variance, beta, gamma,
                                                     epsilon)

            def batch_norm_inference():
                return tf.nn.batch_normalization(linear_output, pop_mean, pop_variance, beta, gamma, epsilon)

            batch_normalized_output = tf.cond(self.is_training, batch_norm_training, batch_norm_inference)
            return activation_fn(batch_normalized_output)
        weights = tf.Variable(initial_weights)
        biases = tf.Variable(tf.zeros([initial_weights.shape[-1]]))
        linear_output = tf.add(tf.matmul(layer_in, weights), biases)
        return linear_output if not activation_fn else activation_fn(linear_output)

    def train(self, session, learning_rate, training_batches, batches_per_sample):
        labels = tf.placeholder(tf.float32, [None, 10])
        cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels,
                                                                               logits=self.output_layer))
        correct_prediction = tf.equal(tf.argmax(self.output_layer, 1), tf.argmax(labels, 1))
        accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train_step = tf.train.GradientDescentOptimizer(learning_rate).minimize(cross_entropy)
        for i in range(training_batches):
            batch_xs, batch_ys = mnist.train.next_batch(60)
            session.run(train_step, feed_dict={self.input_layer: batch_xs, labels: batch_ys,
                                               self.is_training: True})
            if i % batches_per_sample == 0:
                test_accuracy = session.run(accuracy, feed_dict={self.input_layer: mnist.validation.images,
                                                                 labels: mnist.validation.labels,
                                                                 self.is_training: False})
                print("{}: batch {} validation accuracy {:.4f}".format(self.name, i, test_accuracy))
        self.labels, self.accuracy, self.cross_entropy = labels, accuracy, cross_entropy

    def test(self, session):
        test_accuracy, test_loss = session.run([self.accuracy, self.cross_entropy],
                                               feed_dict={self.input_layer: mnist.test.images,
                                                          self.labels: mnist.test.labels, self.is_training: False})
        print("{}: test accuracy {:.4f} cross entropy {:.6f}".format(self.name, test_accuracy, test_loss))


np.random.seed(0)
weights = [np.random.normal(size=(784, 100), scale=0.05).astype(np.float32),
           np.random.normal(size=(100, 100), scale=0.05).astype(np.float32),
           np.random.normal(size=(100, 100), scale=0.05).astype(np.float32),
           np.random.normal(size=(100, 10), scale=0.05).astype(np.float32)]

tf.reset_default_graph()
nn = NeuralNet(weights, tf.nn.relu, False)
bn = NeuralNet(weights, tf.nn.relu, True)
with tf.Session() as sess:
    tf.global_variables_initializer().run()
    for net in (nn, bn):
        net.train(sess, 0.1, 300, 100)
        net.test(sess)
