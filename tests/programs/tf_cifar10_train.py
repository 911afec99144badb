# TensorFlow's CIFAR-10 tutorial model trained under MonitoredTrainingSession: cifar10.py's inference (two
# conv/ReLU layers with max_pool and local response normalization, two fully connected layers, weight decay
# collected in 'losses'), loss (add_n of the collection), train (exponential_decay learning rate, moving
# averages of the losses with summaries, compute/apply_gradients, histograms of variables and gradients,
# ExponentialMovingAverage of the trainable variables) and cifar10_train.py's loop: StopAtStepHook,
# NanTensorHook and a _LoggerHook SessionRunHook printing the loss every few steps.
# After: tensorflow/models, tutorials/image/cifar10/cifar10.py and cifar10_train.py (Apache 2.0, The
# TensorFlow Authors): same functions, names, constants (INITIAL_LEARNING_RATE 0.1, decay 0.1 every 350
# epochs, MOVING_AVERAGE_DECAY 0.9999, stddevs and weight decays) and hook structure. Rewritten for this
# project rather than copied (Python 3). Edits: the import line; FLAGS -> a namespace; cifar10_input's
# distorted_inputs (FixedLengthRecordReader, tf.image distortions, 16 shuffle_batch threads) -> a
# deterministic tf.data pipeline over 64 synthetic 24x24x3 images (labels from a fixed linear teacher);
# batch 128 -> 16, max_steps 1000000 -> 12, log_frequency 10 -> 3; the time and examples/sec dropped from
# the log line; tf.set_random_seed(47); after training the checkpoint MonitoredTrainingSession wrote and its
# summary event file are inspected.
import glob
import re
import types

import numpy as np
import tensorflow.compat.v1 as tf

FLAGS = types.SimpleNamespace(batch_size=16, data_dir='cifar10_data', use_fp16=False, train_dir='cifar10_train',
                              max_steps=12, log_device_placement=False, log_frequency=3)

IMAGE_SIZE = 24
NUM_CLASSES = 10
NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = 50000
MOVING_AVERAGE_DECAY = 0.9999
NUM_EPOCHS_PER_DECAY = 350.0
LEARNING_RATE_DECAY_FACTOR = 0.1
INITIAL_LEARNING_RATE = 0.1
TOWER_NAME = 'tower'


def distorted_inputs():
    rng = np.random.RandomState(47)
    images = rng.rand(64, IMAGE_SIZE, IMAGE_SIZE, 3).astype(np.float32) * 2 - 1
    labels = np.argmax(images.reshape(64, -1) @ rng.randn(IMAGE_SIZE * IMAGE_SIZE * 3, NUM_CLASSES), 1)
    dataset = tf.data.Dataset.from_tensor_slices((images, labels.astype(np.int32)))
    dataset = dataset.repeat().batch(FLAGS.batch_size, drop_remainder=True)
    return dataset.make_one_shot_iterator().get_next()


def _activation_summary(x):
    tensor_name = re.sub('%s_[0-9]*/' % TOWER_NAME, '', x.op.name)
    tf.summary.histogram(tensor_name + '/activations', x)
    tf.summary.scalar(tensor_name + '/sparsity', tf.nn.zero_fraction(x))


def _variable_on_cpu(name, shape, initializer):
    with tf.device('/cpu:0'):
        dtype = tf.float16 if FLAGS.use_fp16 else tf.float32
        var = tf.get_variable(name, shape, initializer=initializer, dtype=dtype)
    return var


def _variable_with_weight_decay(name, shape, stddev, wd):
    dtype = tf.float16 if FLAGS.use_fp16 else tf.float32
    var = _variable_on_cpu(name, shape, tf.truncated_normal_initializer(stddev=stddev, dtype=dtype))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss')
        tf.add_to_collection('losses', weight_decay)
    return var


def inference(images):
    with tf.variable_scope('conv1') as scope:
        kernel = _variable_with_weight_decay('weights', shape=[5, 5, 3, 64], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME')
        biases = _variable_on_cpu('biases', [64], tf.constant_initializer(0.0))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv1 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(conv1)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool1')
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name='norm1')
    with tf.variable_scope('conv2') as scope:
        kernel = _variable_with_weight_decay('weights', shape=[5, 5, 64, 64], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding='SAME')
        biases = _variable_on_cpu('biases', [64], tf.constant_initializer(0.1))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv2 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(conv2)
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name='norm2')
    pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool2')
    with tf.variable_scope('local3') as scope:
        reshape = tf.reshape(pool2, [images.get_shape().as_list()[0], -1])
        dim = reshape.get_shape()[1].value
        weights = _variable_with_weight_decay('weights', shape=[dim, 384], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu('biases', [384], tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases, name=scope.name)
        _activation_summary(local3)
    with tf.variable_scope('local4') as scope:
        weights = _variable_with_weight_decay('weights', shape=[384, 192], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu('biases', [192], tf.constant_initializer(0.1))
        local4 = tf.nn.relu(tf.matmul(local3, weights) + biases, name=scope.name)
        _activation_summary(local4)
    with tf.variable_scope('softmax_linear') as scope:
        weights = _variable_with_weight_decay('weights', [192, NUM_CLASSES], stddev=1 / 192.0, wd=None)
        biases = _variable_on_cpu('biases', [NUM_CLASSES], tf.constant_initializer(0.0))
        softmax_linear = tf.add(tf.matmul(local4, weights), biases, name=scope.name)
        _activation_summary(softmax_linear)
    return softmax_linear


def loss(logits, labels):
    labels = tf.cast(labels, tf.int64)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name='cross_entropy_per_example')
    cross_entropy_mean = tf.reduce_mean(cross_entropy, name='cross_entropy')
    tf.add_to_collection('losses', cross_entropy_mean)
    return tf.add_n(tf.get_collection('losses'), name='total_loss')


def _add_loss_summaries(total_loss):
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name='avg')
    losses = tf.get_collection('losses')
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    for l in losses + [total_loss]:
        tf.summary.scalar(l.op.name + ' (raw)', l)
        tf.summary.scalar(l.op.name, loss_averages.average(l))
    return loss_averages_op


def train(total_loss, global_step):
    num_batches_per_epoch = NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN / FLAGS.batch_size
    decay_steps = int(num_batches_per_epoch * NUM_EPOCHS_PER_DECAY)
    lr = tf.train.exponential_decay(INITIAL_LEARNING_RATE, global_step, decay_steps,
                                    LEARNING_RATE_DECAY_FACTOR, staircase=True)
    tf.summary.scalar('learning_rate', lr)
    loss_averages_op = _add_loss_summaries(total_loss)
    with tf.control_dependencies([loss_averages_op]):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(total_loss)
    apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name, var)
    for grad, var in grads:
        if grad is not None:
            tf.summary.histogram(var.op.name + '/gradients', grad)
    variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
    return variables_averages_op


def run_train():
    with tf.Graph().as_default():
        tf.set_random_seed(47)
        global_step = tf.train.get_or_create_global_step()
        with tf.device('/cpu:0'):
            images, labels = distorted_inputs()
        logits = inference(images)
        loss_op = loss(logits, labels)
        train_op = train(loss_op, global_step)

        class _LoggerHook(tf.train.SessionRunHook):
            def begin(self):
                self._step = -1

            def before_run(self, run_context):
                self._step += 1
                return tf.train.SessionRunArgs(loss_op)

            def after_run(self, run_context, run_values):
                if self._step % FLAGS.log_frequency == 0:
                    loss_value = run_values.results
                    print('step %d, loss = %.4f' % (self._step, loss_value))

        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=FLAGS.train_dir,
                hooks=[tf.train.StopAtStepHook(last_step=FLAGS.max_steps),
                       tf.train.NanTensorHook(loss_op),
                       _LoggerHook()],
                config=tf.ConfigProto(log_device_placement=FLAGS.log_device_placement)) as mon_sess:
            while not mon_sess.should_stop():
                mon_sess.run(train_op)


run_train()
checkpoint = tf.train.latest_checkpoint(FLAGS.train_dir)
print("checkpoint:", checkpoint)
reader = tf.train.NewCheckpointReader(checkpoint)
names = sorted(reader.get_variable_to_shape_map())
print(len(names), "saved tensors, e.g.", [n for n in names if n.startswith(("conv1", "total_loss", "global"))])
print("global_step:", reader.get_tensor("global_step"))
print("conv1/biases moving average: %.6f" % reader.get_tensor("conv1/biases/ExponentialMovingAverage").sum())
print("total_loss average: %.5f" % reader.get_tensor("total_loss/avg"))
events = [e for f in sorted(glob.glob(FLAGS.train_dir + "/events.out.tfevents.*"))
          for e in tf.train.summary_iterator(f) if e.HasField("summary")]
steps = sorted({e.step for e in events if any(v.tag == 'learning_rate' for v in e.summary.value)})
print("summaries at steps", steps)
tags = sorted({v.tag for e in events for v in e.summary.value if not v.tag.startswith("global_step")})
print(len(tags), "tags:", tags[:8])
