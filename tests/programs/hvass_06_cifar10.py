# A CIFAR-10 CNN trained on randomly distorted images: each image of the batch is randomly cropped, flipped and
# changed in hue, contrast, brightness and saturation by tf.map_fn; a training network and a test network (centre
# crops, moving batch-norm statistics) share their variables under tf.variable_scope('network', reuse=...). The
# program restores its last checkpoint when there is one, so its second run resumes the global step.
# After: Hvass-Labs/TensorFlow-Tutorials, 06_CIFAR-10.ipynb (MIT, Magnus Erik Hvass Pedersen): same
# pre_process_image (random_crop to 24x24, random_flip_left_right, random_hue 0.05, random_contrast 0.3-1.0,
# random_brightness 0.2, random_saturation 0-2, clipped by tf.minimum / tf.maximum; the test branch
# resize_image_with_crop_or_pad) mapped over the batch by tf.map_fn, create_network(training) under
# variable_scope('network', reuse=not training), a non-trainable global_step Variable incremented by
# AdamOptimizer(1e-4).minimize(loss, global_step=...), accuracy of the test network, get_weights_variable (a
# reusing variable_scope + get_variable('weights')), get_layer_output (get_tensor_by_name of
# 'network/layer_conv1/Relu:0'), Saver with latest_checkpoint / restore or initialize, optimize() printing the
# global step and training batch accuracy and saving with global_step, predict_cls in batches, the test accuracy
# with its confusion matrix, the distorted copies of one test image, weight and layer-output statistics, one
# image's prediction printed with precision=3, suppress=True. Rewritten for this project rather than copied. Edits
# (each marked "edit:" below): the import line; the CIFAR-10 download -> 600 synthetic 32x32 images (class-tinted
# noise); PrettyTensor's layers (conv2d 5x5 64 with batch_normalize=True, max_pool, conv2d 5x5 64, flatten,
# fully_connected 256 and 128, softmax_classifier) written with tf.get_variable / tf.nn.conv2d /
# tf.layers.batch_normalization(training=) / tf.losses.softmax_cross_entropy, narrower (16, 16, 64, 32), the first
# conv without the bias PrettyTensor adds ahead of batch norm (its gradient is pure rounding noise, which Adam
# turns into full steps: in a dense + batch-norm MLP, TensorFlow with and without oneDNN print evaluation losses
# 3e-4 apart after 34 steps); the UPDATE_OPS of batch norm as control dependencies of the optimizer;
# tf.map_fn(parallel_iterations=1) (with 10 iterations in flight the random ops' draws go to images in a different
# order each run, in TensorFlow itself); np.random.seed(6) and tf.set_random_seed(6); train_batch_size 64 -> 32; 10
# iterations per run, printing every 4th step and saving every 8th (every 100th and 1000th); the time usage not
# printed; sklearn's confusion_matrix -> numpy; plots -> printed shapes and statistics; the session closed at the
# end.
import os

import numpy as np
import tensorflow.compat.v1 as tf

np.random.seed(6)  # edit: seeded batches
tf.set_random_seed(6)  # edit: seeded weights and distortions

# edit: synthetic CIFAR-10 (cifar10.load_class_names / load_training_data / load_test_data)
class_names = ['airplane', 'automobile', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck']
img_size, num_channels, num_classes = 32, 3, 10


def synthetic_cifar10(n, rng):
    """``n`` noisy 32x32 images tinted by their class, their class numbers and one-hot labels."""
    cls = rng.randint(num_classes, size=n)
    tints = np.linspace(0.2, 0.8, num_classes * num_channels).reshape(num_classes, num_channels)
    tints = tints[np.random.RandomState(1).permutation(num_classes)]
    images = np.clip(tints[cls][:, None, None, :] + 0.25 * rng.randn(n, img_size, img_size, num_channels), 0, 1)
    return images.astype(np.float32), cls, np.eye(num_classes, dtype=np.float32)[cls]


data_rng = np.random.RandomState(10)
images_train, cls_train, labels_train = synthetic_cifar10(500, data_rng)
images_test, cls_test, labels_test = synthetic_cifar10(100, data_rng)
print("Size of:")
print("- Training-set:\t\t{}".format(len(images_train)))
print("- Test-set:\t\t{}".format(len(images_test)))

img_size_cropped = 24

x = tf.placeholder(tf.float32, shape=[None, img_size, img_size, num_channels], name='x')
y_true = tf.placeholder(tf.float32, shape=[None, num_classes], name='y_true')
y_true_cls = tf.argmax(y_true, axis=1)


def pre_process_image(image, training):
    """One image distorted at random for training, or its centre crop for testing."""
    if training:
        image = tf.random_crop(image, size=[img_size_cropped, img_size_cropped, num_channels])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_hue(image, max_delta=0.05)
        image = tf.image.random_contrast(image, lower=0.3, upper=1.0)
        image = tf.image.random_brightness(image, max_delta=0.2)
        image = tf.image.random_saturation(image, lower=0.0, upper=2.0)
        # the adjustments may leave [0, 1]
        image = tf.minimum(image, 1.0)
        image = tf.maximum(image, 0.0)
    else:
        image = tf.image.resize_image_with_crop_or_pad(image, target_height=img_size_cropped,
                                                       target_width=img_size_cropped)
    return image


def pre_process(images, training):
    """pre_process_image applied to each image of the batch."""
    return tf.map_fn(lambda image: pre_process_image(image, training), images,
                     parallel_iterations=1)  # edit: parallel_iterations


distorted_images = pre_process(images=x, training=True)


# edit: PrettyTensor's conv2d / fully_connected written out, their variables named 'weights' and 'bias'
def conv_layer(net, kernel, depth, name, training, batch_normalize=False):
    with tf.variable_scope(name):
        weights = tf.get_variable('weights', [kernel, kernel, net.get_shape()[-1], depth])
        net = tf.nn.conv2d(net, weights, strides=[1, 1, 1, 1], padding='SAME')
        if batch_normalize:
            net = tf.layers.batch_normalization(net, training=training)
        else:
            net = net + tf.get_variable('bias', [depth], initializer=tf.zeros_initializer())
        return tf.nn.relu(net)


def fully_connected(net, size, name, activation_fn=tf.nn.relu):
    with tf.variable_scope(name):
        weights = tf.get_variable('weights', [net.get_shape()[-1], size])
        bias = tf.get_variable('bias', [size], initializer=tf.zeros_initializer())
        net = tf.matmul(net, weights) + bias
        return net if activation_fn is None else activation_fn(net)


def main_network(images, training):
    """The CNN's class probabilities and its loss."""
    net = conv_layer(images, 5, 16, 'layer_conv1', training, batch_normalize=True)  # edit: 64 filters
    net = tf.nn.max_pool(net, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    net = conv_layer(net, 5, 16, 'layer_conv2', training)  # edit: 64 filters
    net = tf.nn.max_pool(net, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    net = tf.reshape(net, [-1, net.get_shape()[1:4].num_elements()])
    net = fully_connected(net, 64, 'layer_fc1')  # edit: 256
    net = fully_connected(net, 32, 'layer_fc2')  # edit: 128
    logits = fully_connected(net, num_classes, 'softmax_classifier', activation_fn=None)
    y_pred = tf.nn.softmax(logits)
    loss = tf.losses.softmax_cross_entropy(onehot_labels=y_true, logits=logits)
    return y_pred, loss


def create_network(training):
    """The training network makes the variables; the test network reuses them."""
    with tf.variable_scope('network', reuse=not training):
        images = x
        images = pre_process(images=images, training=training)
        y_pred, loss = main_network(images=images, training=training)
    return y_pred, loss


global_step = tf.Variable(initial_value=0, name='global_step', trainable=False)

_, loss = create_network(training=True)
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):  # edit: batch norm's updates
    optimizer = tf.train.AdamOptimizer(learning_rate=1e-4).minimize(loss, global_step=global_step)

y_pred, _ = create_network(training=False)
y_pred_cls = tf.argmax(y_pred, axis=1)
correct_prediction = tf.equal(y_pred_cls, y_true_cls)
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

saver = tf.train.Saver()


def get_weights_variable(layer_name):
    """The layer's existing 'weights' Variable, found through a reusing variable scope."""
    with tf.variable_scope("network/" + layer_name, reuse=True):
        variable = tf.get_variable('weights')
    return variable


weights_conv1 = get_weights_variable(layer_name='layer_conv1')
weights_conv2 = get_weights_variable(layer_name='layer_conv2')


def get_layer_output(layer_name):
    """The output of the layer's ReLU in the training network."""
    tensor_name = "network/" + layer_name + "/Relu:0"
    return tf.get_default_graph().get_tensor_by_name(tensor_name)


output_conv1 = get_layer_output(layer_name='layer_conv1')
output_conv2 = get_layer_output(layer_name='layer_conv2')

session = tf.Session()

save_dir = 'checkpoints/'
if not os.path.exists(save_dir):
    os.makedirs(save_dir)
save_path = os.path.join(save_dir, 'cifar10_cnn')

try:
    print("Trying to restore last checkpoint ...")
    last_chk_path = tf.train.latest_checkpoint(checkpoint_dir=save_dir)
    saver.restore(session, save_path=last_chk_path)
    print("Restored checkpoint from:", last_chk_path)
except:  # noqa: E722  (as written: any failure means starting afresh)
    print("Failed to restore checkpoint. Initializing variables instead.")
    session.run(tf.global_variables_initializer())

train_batch_size = 32  # edit: 64


def random_batch():
    """A random batch of training images and labels."""
    num_images = len(images_train)
    idx = np.random.choice(num_images, size=train_batch_size, replace=False)
    return images_train[idx, :, :, :], labels_train[idx, :]


def optimize(num_iterations):
    for i in range(num_iterations):
        x_batch, y_true_batch = random_batch()
        feed_dict_train = {x: x_batch, y_true: y_true_batch}
        i_global, _ = session.run([global_step, optimizer], feed_dict=feed_dict_train)
        if (i_global % 4 == 0) or (i == num_iterations - 1):  # edit: 100
            batch_acc = session.run(accuracy, feed_dict=feed_dict_train)
            msg = "Global Step: {0:>6}, Training Batch Accuracy: {1:>6.1%}"
            print(msg.format(i_global, batch_acc))
        if (i_global % 8 == 0) or (i == num_iterations - 1):  # edit: 1000
            saver.save(session, save_path=save_path, global_step=global_step)
            print("Saved checkpoint.")


def print_confusion_matrix(cls_pred):
    cm = np.zeros((num_classes, num_classes), dtype=int)  # edit: sklearn.metrics.confusion_matrix
    np.add.at(cm, (cls_test, cls_pred), 1)
    for i in range(num_classes):
        class_name = "({}) {}".format(i, class_names[i])
        print(cm[i, :], class_name)
    class_numbers = [" ({0})".format(i) for i in range(num_classes)]
    print("".join(class_numbers))


batch_size = 256


def predict_cls(images, labels, cls_true):
    """The test network's predicted classes, computed in batches, and whether each is right."""
    num_images = len(images)
    cls_pred = np.zeros(shape=num_images, dtype=int)
    i = 0
    while i < num_images:
        j = min(i + batch_size, num_images)
        feed_dict = {x: images[i:j, :], y_true: labels[i:j, :]}
        cls_pred[i:j] = session.run(y_pred_cls, feed_dict=feed_dict)
        i = j
    correct = (cls_true == cls_pred)
    return correct, cls_pred


def predict_cls_test():
    return predict_cls(images=images_test, labels=labels_test, cls_true=cls_test)


def classification_accuracy(correct):
    return correct.mean(), correct.sum()


def print_test_accuracy(show_confusion_matrix=False):
    correct, cls_pred = predict_cls_test()
    acc, num_correct = classification_accuracy(correct)
    num_images = len(correct)
    msg = "Accuracy on Test-Set: {0:.1%} ({1} / {2})"
    print(msg.format(acc, num_correct, num_images))
    if show_confusion_matrix:
        print("Confusion Matrix:")
        print_confusion_matrix(cls_pred=cls_pred)


def plot_distorted_image(image, cls_true):
    """Nine distorted copies of one image (edit: their statistics printed instead of plotted)."""
    image_duplicates = np.repeat(image[np.newaxis, :, :, :], 9, axis=0)
    result = session.run(distorted_images, feed_dict={x: image_duplicates})
    print(class_names[cls_true], result.shape, "means:", result.mean(axis=(1, 2, 3)))
    print("first pixels:", result[:3, 0, 0, :].ravel())


def get_test_image(i):
    return images_test[i, :, :, :], cls_test[i]


img, cls = get_test_image(16)
plot_distorted_image(img, cls)

optimize(num_iterations=10)  # edit: 150000 (the notebook runs it when wanted, `if False:`)

print_test_accuracy(show_confusion_matrix=True)


def plot_conv_weights(weights, input_channel=0):
    """Edit: the weights' statistics, without the plots."""
    w = session.run(weights)
    print("Min:  {0:.5f}, Max:   {1:.5f}".format(w.min(), w.max()))
    print("Mean: {0:.5f}, Stdev: {1:.5f}".format(w.mean(), w.std()))


def plot_layer_output(layer_output, image):
    """Edit: the layer output's shape and statistics, without the plots."""
    values = session.run(layer_output, feed_dict={x: [image]})
    print(values.shape, "max: {0:.5f}, mean: {1:.5f}".format(values.max(), values.mean()))


plot_conv_weights(weights=weights_conv1, input_channel=0)
plot_conv_weights(weights=weights_conv2, input_channel=1)
plot_layer_output(output_conv1, image=img)
plot_layer_output(output_conv2, image=img)

label_pred, cls_pred = session.run([y_pred, y_pred_cls], feed_dict={x: [img]})
with np.printoptions(precision=3, suppress=True):  # edit: np.set_printoptions, which would outlast the program
    print(label_pred[0])
print(class_names[cls_pred[0]], class_names[cls])

session.close()
