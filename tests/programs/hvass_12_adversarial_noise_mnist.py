# Adversarial noise for MNIST: one noise image, a non-trainable Variable in its own collection, is added to every
# input; a CNN is trained as usual, then a second Adam optimizes only the noise (var_list=) so that every image is
# classified as a target class, the noise clipped by an assign after each step; then the network is trained on the
# noisy images again to become immune to that noise.
# After: Hvass-Labs/TensorFlow-Tutorials, 12_Adversarial_Noise_MNIST.ipynb (MIT, Magnus Erik Hvass Pedersen), its
# later form with the network in tf.layers (the first used PrettyTensor): same noise Variable (tf.zeros,
# trainable=False, collections=[GLOBAL_VARIABLES, 'adversary_variables']), x_noise_clip = tf.assign(x_noise,
# tf.clip_by_value(...)), the noisy image clipped to [0, 1], tf.layers conv2d 'layer_conv1' (16 5x5) /
# max_pooling2d / 'layer_conv2' (36 5x5) / flatten / dense 'layer_fc1' (128) / 'layer_fc_out',
# softmax_cross_entropy_with_logits_v2, the variable names printed, the adversary loss with noise_l2_weight *
# tf.nn.l2_loss(x_noise) minimized by Adam(1e-2) over get_collection('adversary_variables'), init_noise by
# tf.variables_initializer([x_noise]), optimize() with its faked target labels, the noise statistics,
# print_test_accuracy in batches with the confusion matrix, find_all_noise and make_immune. Rewritten for this
# project rather than copied. Edits (each marked "edit:" below): the import line; the tutorial's MNIST class -> a
# small wrapper over the local stand-in `input_data` (random_batch from a seeded np.random);
# tf.set_random_seed(12); iterations 1000 / 1000 / 300 per class / 500 and 200 for immunity -> 30 / 10 / 2 for two
# of the classes / 4 and 5, printing every 10th (100th). Few steps, and counts checked: Adam's steps on the noise
# turn the rounding noise of near-zero gradients into visible differences: with 20 first iterations, or 20 noise
# steps, TensorFlow with and without oneDNN already print noise statistics 1e-4 apart; with these they print the
# same. The time usage not printed; sklearn's confusion_matrix -> numpy; the example errors' indices printed
# instead of plotted, the noise's statistics instead of its plots; the session closed.
import numpy as np
import tensorflow.compat.v1 as tf

import input_data

tf.set_random_seed(12)  # edit: seeded weights


class MNIST:
    """Edit: the tutorial's MNIST class (x_test, y_test, y_test_cls, num_test, random_batch) over the stand-in."""

    def __init__(self):
        sets = input_data.read_data_sets("MNIST_data/", one_hot=True)
        self.x_train, self.y_train = sets.train.images, sets.train.labels
        self.x_test, self.y_test = sets.test.images, sets.test.labels
        self.y_test_cls = np.argmax(self.y_test, axis=1)
        self.num_train, self.num_test = len(self.x_train), len(self.x_test)
        self._rng = np.random.RandomState(12)

    def random_batch(self, batch_size=32):
        idx = self._rng.randint(low=0, high=self.num_train, size=batch_size)
        return self.x_train[idx], self.y_train[idx], np.argmax(self.y_train[idx], axis=1)


data = MNIST()
print("Size of:")
print("- Training-set:\t\t{}".format(data.num_train))
print("- Test-set:\t\t{}".format(data.num_test))

img_size = 28
img_size_flat = img_size * img_size
num_channels = 1
num_classes = 10

x = tf.placeholder(tf.float32, shape=[None, img_size_flat], name='x')
x_image = tf.reshape(x, [-1, img_size, img_size, num_channels])
y_true = tf.placeholder(tf.float32, shape=[None, num_classes], name='y_true')
y_true_cls = tf.argmax(y_true, axis=1)

noise_limit = 0.35
noise_l2_weight = 0.02

# The noise must not be trained with the network's variables, but initialized with them.
ADVERSARY_VARIABLES = 'adversary_variables'
collections = [tf.GraphKeys.GLOBAL_VARIABLES, ADVERSARY_VARIABLES]
x_noise = tf.Variable(tf.zeros([img_size, img_size, num_channels]), name='x_noise', trainable=False,
                      collections=collections)
x_noise_clip = tf.assign(x_noise, tf.clip_by_value(x_noise, -noise_limit, noise_limit))

x_noisy_image = x_image + x_noise
x_noisy_image = tf.clip_by_value(x_noisy_image, 0.0, 1.0)

net = x_noisy_image
net = tf.layers.conv2d(inputs=net, name='layer_conv1', padding='same', filters=16, kernel_size=5,
                       activation=tf.nn.relu)
net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)
net = tf.layers.conv2d(inputs=net, name='layer_conv2', padding='same', filters=36, kernel_size=5,
                       activation=tf.nn.relu)
net = tf.layers.max_pooling2d(inputs=net, pool_size=2, strides=2)
net = tf.layers.flatten(net)
net = tf.layers.dense(inputs=net, name='layer_fc1', units=128, activation=tf.nn.relu)
net = tf.layers.dense(inputs=net, name='layer_fc_out', units=num_classes, activation=None)
logits = net
y_pred = tf.nn.softmax(logits=logits)

cross_entropy = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=logits)
loss = tf.reduce_mean(cross_entropy)

print([var.name for var in tf.trainable_variables()])  # edit: one line
optimizer = tf.train.AdamOptimizer(learning_rate=1e-4).minimize(loss)

adversary_variables = tf.get_collection(ADVERSARY_VARIABLES)
print([var.name for var in adversary_variables])  # edit: one line
l2_loss_noise = noise_l2_weight * tf.nn.l2_loss(x_noise)
loss_adversary = loss + l2_loss_noise
optimizer_adversary = tf.train.AdamOptimizer(learning_rate=1e-2).minimize(loss_adversary,
                                                                           var_list=adversary_variables)

y_pred_cls = tf.argmax(y_pred, axis=1)
correct_prediction = tf.equal(y_pred_cls, y_true_cls)
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

session = tf.Session()
session.run(tf.global_variables_initializer())


def init_noise():
    session.run(tf.variables_initializer([x_noise]))


init_noise()

train_batch_size = 64


def optimize(num_iterations, adversary_target_cls=None):
    for i in range(num_iterations):
        x_batch, y_true_batch, _ = data.random_batch(batch_size=train_batch_size)
        if adversary_target_cls is not None:
            # every image's label becomes the target class
            y_true_batch = np.zeros_like(y_true_batch)
            y_true_batch[:, adversary_target_cls] = 1.0
        feed_dict_train = {x: x_batch, y_true: y_true_batch}
        if adversary_target_cls is None:
            session.run(optimizer, feed_dict=feed_dict_train)
        else:
            session.run(optimizer_adversary, feed_dict=feed_dict_train)
            # in a run of its own: the clip must follow the optimizer's update
            session.run(x_noise_clip)
        if (i % 10 == 0) or (i == num_iterations - 1):  # edit: 100
            acc = session.run(accuracy, feed_dict=feed_dict_train)
            msg = "Optimization Iteration: {0:>6}, Training Accuracy: {1:>6.1%}"
            print(msg.format(i, acc))


def get_noise():
    noise = session.run(x_noise)
    return np.squeeze(noise)


def plot_noise():
    noise = get_noise()
    print("Noise:")
    print("- Min:", noise.min())
    print("- Max:", noise.max())
    print("- Std:", noise.std())


def plot_confusion_matrix(cls_pred):
    cm = np.zeros((num_classes, num_classes), dtype=int)  # edit: sklearn.metrics.confusion_matrix
    np.add.at(cm, (data.y_test_cls, cls_pred), 1)
    print(cm)


test_batch_size = 256


def print_test_accuracy(show_example_errors=False, show_confusion_matrix=False):
    num_test = data.num_test
    cls_pred = np.zeros(shape=num_test, dtype=int)
    i = 0
    while i < num_test:
        j = min(i + test_batch_size, num_test)
        feed_dict = {x: data.x_test[i:j, :], y_true: data.y_test[i:j, :]}
        cls_pred[i:j] = session.run(y_pred_cls, feed_dict=feed_dict)
        i = j
    correct = (data.y_test_cls == cls_pred)
    correct_sum = correct.sum()
    acc = float(correct_sum) / num_test
    msg = "Accuracy on Test-Set: {0:.1%} ({1} / {2})"
    print(msg.format(acc, correct_sum, num_test))
    if show_example_errors:
        print("Example errors:", np.flatnonzero(~correct)[:9])  # edit: their indices, not their plots
    if show_confusion_matrix:
        print("Confusion Matrix:")
        plot_confusion_matrix(cls_pred=cls_pred)


print_test_accuracy()
optimize(num_iterations=30)  # edit: 1000
print_test_accuracy(show_example_errors=True)

init_noise()
optimize(num_iterations=10, adversary_target_cls=3)  # edit: 1000
plot_noise()
print_test_accuracy(show_example_errors=True, show_confusion_matrix=True)


def find_all_noise(num_iterations=1000, target_classes=range(num_classes)):
    all_noise = []
    for i in target_classes:  # edit: range(num_classes)
        print("Finding adversarial noise for target-class:", i)
        init_noise()
        optimize(num_iterations=num_iterations, adversary_target_cls=i)
        noise = get_noise()
        all_noise.append(noise)
        print()
    return all_noise


all_noise = find_all_noise(num_iterations=2, target_classes=[0, 9])  # edit: 300 for every class
print([round(float(np.abs(noise).mean()), 6) for noise in all_noise])  # edit: plot_all_noise


def make_immune(target_cls, num_iterations_adversary=500, num_iterations_immune=200):
    print("Target-class:", target_cls)
    print("Finding adversarial noise ...")
    optimize(num_iterations=num_iterations_adversary, adversary_target_cls=target_cls)
    print()
    print_test_accuracy(show_example_errors=False, show_confusion_matrix=False)
    print()
    print("Making the neural network immune to the noise ...")
    optimize(num_iterations=num_iterations_immune)
    print()
    print_test_accuracy(show_example_errors=False, show_confusion_matrix=False)


make_immune(target_cls=3, num_iterations_adversary=4, num_iterations_immune=5)  # edit: 500, 200

init_noise()
print_test_accuracy(show_example_errors=False, show_confusion_matrix=True)  # performance on clean images

session.close()  # edit
