# TensorFlow's "Reading data" example end to end: convert_to_records.py writes the data sets as TFRecord files
# of tf.train.Example protos (image_raw bytes, label/height/width/depth int64s), then fully_connected_reader.py
# trains mnist.py's network from them through tf.data: TFRecordDataset, map(decode) with
# parse_single_example + decode_raw, map(augment), map(normalize), shuffle, repeat(num_epochs), batch and a
# one-shot iterator, training until OutOfRangeError.
# After: tensorflow/tensorflow, tensorflow/examples/how_tos/reading_data/convert_to_records.py and
# fully_connected_reader.py, with tensorflow/examples/tutorials/mnist/mnist.py (Apache 2.0, The TensorFlow
# Authors): same functions, feature keys, hyper-parameters (learning rate 0.01, hidden 128/32, batch 100,
# 2 epochs) and printed lines. Rewritten for this project rather than copied (Python 3). Edits: the import
# line; mnist.py's functions inlined; FLAGS -> a namespace; MNIST -> the local stand-in `input_data`, its
# [0, 1] images scaled to uint8 as the real MNIST bytes are (convert_to_records reads uint8 images);
# ndarray.tostring() -> tobytes() (numpy 2); the step duration dropped from the status line; status every 5 steps;
# tf.set_random_seed(41) (the shuffle's seed comes from the graph seed).
import math
import os
import types

import numpy as np
import tensorflow.compat.v1 as tf
import input_data

NUM_CLASSES = 10
IMAGE_PIXELS = 784
TRAIN_FILE = 'train.tfrecords'
VALIDATION_FILE = 'validation.tfrecords'
FLAGS = types.SimpleNamespace(directory='data', validation_size=100, learning_rate=0.01, num_epochs=2,
                              hidden1=128, hidden2=32, batch_size=100, train_dir='data')


# --- convert_to_records.py -------------------------------------------------------------------------------
def _int64_feature(value):
    return tf.train.Feature(int64_list=tf.train.Int64List(value=[value]))


def _bytes_feature(value):
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=[value]))


def convert_to(images, labels, name):
    num_examples = labels.shape[0]
    if images.shape[0] != num_examples:
        raise ValueError('Images size %d does not match label size %d.' % (images.shape[0], num_examples))
    rows, cols, depth = images.shape[1], images.shape[2], images.shape[3]
    filename = os.path.join(FLAGS.directory, name + '.tfrecords')
    print('Writing', filename)
    with tf.python_io.TFRecordWriter(filename) as writer:
        for index in range(num_examples):
            image_raw = images[index].tobytes()
            example = tf.train.Example(features=tf.train.Features(feature={
                'height': _int64_feature(rows),
                'width': _int64_feature(cols),
                'depth': _int64_feature(depth),
                'label': _int64_feature(int(labels[index])),
                'image_raw': _bytes_feature(image_raw)}))
            writer.write(example.SerializeToString())


def convert_main():
    data_sets = input_data.read_data_sets(FLAGS.directory, dtype=tf.uint8, reshape=False,
                                          validation_size=FLAGS.validation_size)
    for name, data_set in (('train', data_sets.train), ('validation', data_sets.validation),
                           ('test', data_sets.test)):
        images = np.round(data_set.images * 255).astype(np.uint8).reshape(-1, 28, 28, 1)
        convert_to(images, data_set.labels, name)


# --- mnist.py ----------------------------------------------------------------------------------------------
def inference(images, hidden1_units, hidden2_units):
    with tf.name_scope('hidden1'):
        weights = tf.Variable(tf.truncated_normal([IMAGE_PIXELS, hidden1_units],
                                                  stddev=1.0 / math.sqrt(float(IMAGE_PIXELS))), name='weights')
        biases = tf.Variable(tf.zeros([hidden1_units]), name='biases')
        hidden1 = tf.nn.relu(tf.matmul(images, weights) + biases)
    with tf.name_scope('hidden2'):
        weights = tf.Variable(tf.truncated_normal([hidden1_units, hidden2_units],
                                                  stddev=1.0 / math.sqrt(float(hidden1_units))), name='weights')
        biases = tf.Variable(tf.zeros([hidden2_units]), name='biases')
        hidden2 = tf.nn.relu(tf.matmul(hidden1, weights) + biases)
    with tf.name_scope('softmax_linear'):
        weights = tf.Variable(tf.truncated_normal([hidden2_units, NUM_CLASSES],
                                                  stddev=1.0 / math.sqrt(float(hidden2_units))), name='weights')
        biases = tf.Variable(tf.zeros([NUM_CLASSES]), name='biases')
        return tf.matmul(hidden2, weights) + biases


def loss(logits, labels):
    return tf.losses.sparse_softmax_cross_entropy(labels=tf.to_int64(labels), logits=logits)


def training(loss, learning_rate):
    tf.summary.scalar('loss', loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name='global_step', trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


# --- fully_connected_reader.py -------------------------------------------------------------------------------
def decode(serialized_example):
    features = tf.parse_single_example(serialized_example, features={
        'image_raw': tf.FixedLenFeature([], tf.string),
        'label': tf.FixedLenFeature([], tf.int64),
    })
    image = tf.decode_raw(features['image_raw'], tf.uint8)
    image.set_shape((IMAGE_PIXELS))
    label = tf.cast(features['label'], tf.int32)
    return image, label


def augment(image, label):
    return image, label


def normalize(image, label):
    image = tf.cast(image, tf.float32) * (1. / 255) - 0.5
    return image, label


def inputs(train, batch_size, num_epochs):
    if not num_epochs:
        num_epochs = None
    filename = os.path.join(FLAGS.train_dir, TRAIN_FILE if train else VALIDATION_FILE)
    with tf.name_scope('input'):
        dataset = tf.data.TFRecordDataset(filename)
        dataset = dataset.map(decode)
        dataset = dataset.map(augment)
        dataset = dataset.map(normalize)
        dataset = dataset.shuffle(1000 + 3 * batch_size)
        dataset = dataset.repeat(num_epochs)
        dataset = dataset.batch(batch_size)
        iterator = dataset.make_one_shot_iterator()
    return iterator.get_next()


def run_training():
    with tf.Graph().as_default():
        tf.set_random_seed(41)
        image_batch, label_batch = inputs(train=True, batch_size=FLAGS.batch_size, num_epochs=FLAGS.num_epochs)
        logits = inference(image_batch, FLAGS.hidden1, FLAGS.hidden2)
        loss_op = loss(logits, label_batch)
        train_op = training(loss_op, FLAGS.learning_rate)
        init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
        with tf.Session() as sess:
            sess.run(init_op)
            try:
                step = 0
                while True:
                    _, loss_value = sess.run([train_op, loss_op])
                    if step % 5 == 0:
                        print('Step %d: loss = %.2f' % (step, loss_value))
                    step += 1
            except tf.errors.OutOfRangeError:
                print('Done training for %d epochs, %d steps.' % (FLAGS.num_epochs, step))


os.makedirs(FLAGS.directory, exist_ok=True)
convert_main()
run_training()
