# The CIFAR-10 binary reader of TensorFlow's CIFAR-10 tutorial: file names through string_input_producer,
# tf.FixedLengthRecordReader records of 1 label byte + 32x32x3 image bytes, decode_raw, strided_slice of
# the label and depth-major image, transpose to [height, width, depth], and _generate_image_and_label_batch
# batching with tf.train.batch under queue runners; then a softmax classifier trained on the batches.
# After: tensorflow/models, tutorials/image/cifar10/cifar10_input.py (Apache 2.0, The TensorFlow Authors):
# same read_cifar10 (CIFAR10Record with height/width/depth/key/label/uint8image, label_bytes 1,
# record_bytes = label_bytes + image_bytes), _generate_image_and_label_batch (shuffle=False branch) and the
# data_batch_%d.bin file names. Rewritten for this project rather than copied (Python 3). Edits: the import
# line; the downloaded CIFAR-10 -> 2 synthetic binary files of 40 records written first (labels from a
# fixed linear teacher); the eval-input image ops (tf.image resize_image_with_crop_or_pad and
# per_image_standardization, not emulated yet) -> a cast and scaling to [0, 1]; string_input_producer
# shuffle=False and tf.train.batch num_threads 16 -> 1 (so records arrive in the same order under both
# frameworks); batch 128 -> 16; a GradientDescent softmax on the batches for 10 steps; tf.set_random_seed(59).
import os

import numpy as np
import tensorflow.compat.v1 as tf

NUM_CLASSES = 10
data_dir = 'cifar-10-batches-bin'


def write_synthetic_files():
    rng = np.random.RandomState(59)
    teacher = rng.randn(32 * 32 * 3, NUM_CLASSES)
    os.makedirs(data_dir, exist_ok=True)
    for i in range(1, 3):
        images = rng.randint(0, 256, size=(40, 3, 32, 32)).astype(np.uint8)  # depth-major, as CIFAR-10's
        centred = images.reshape(40, -1).astype(np.float64) - 127.5
        labels = np.argmax(centred @ teacher, axis=1).astype(np.uint8)
        records = np.concatenate([labels[:, None], images.reshape(40, -1)], axis=1)
        with open(os.path.join(data_dir, 'data_batch_%d.bin' % i), 'wb') as f:
            f.write(records.tobytes())


def read_cifar10(filename_queue):
    class CIFAR10Record(object):
        pass
    result = CIFAR10Record()
    label_bytes = 1
    result.height = 32
    result.width = 32
    result.depth = 3
    image_bytes = result.height * result.width * result.depth
    record_bytes = label_bytes + image_bytes
    reader = tf.FixedLengthRecordReader(record_bytes=record_bytes)
    result.key, value = reader.read(filename_queue)
    record_bytes = tf.decode_raw(value, tf.uint8)
    result.label = tf.cast(tf.strided_slice(record_bytes, [0], [label_bytes]), tf.int32)
    depth_major = tf.reshape(tf.strided_slice(record_bytes, [label_bytes], [label_bytes + image_bytes]),
                             [result.depth, result.height, result.width])
    result.uint8image = tf.transpose(depth_major, [1, 2, 0])
    return result


def _generate_image_and_label_batch(image, label, min_queue_examples, batch_size, shuffle):
    num_preprocess_threads = 1
    if shuffle:
        images, label_batch = tf.train.shuffle_batch(
            [image, label], batch_size=batch_size, num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size, min_after_dequeue=min_queue_examples)
    else:
        images, label_batch = tf.train.batch(
            [image, label], batch_size=batch_size, num_threads=num_preprocess_threads,
            capacity=min_queue_examples + 3 * batch_size)
    tf.summary.image('images', images)
    return images, tf.reshape(label_batch, [batch_size])


def inputs(batch_size):
    filenames = [os.path.join(data_dir, 'data_batch_%d.bin' % i) for i in range(1, 3)]
    for f in filenames:
        if not tf.gfile.Exists(f):
            raise ValueError('Failed to find file: ' + f)
    with tf.name_scope('input'):
        filename_queue = tf.train.string_input_producer(filenames, shuffle=False)
        read_input = read_cifar10(filename_queue)
        float_image = tf.cast(read_input.uint8image, tf.float32) / 255.0
        float_image.set_shape([32, 32, 3])
        read_input.label.set_shape([1])
        min_queue_examples = 20
    return _generate_image_and_label_batch(float_image, read_input.label, min_queue_examples, batch_size,
                                           shuffle=False)


write_synthetic_files()
tf.set_random_seed(59)
images, labels = inputs(batch_size=16)
print("batch:", images.shape.as_list(), labels.shape.as_list())
flat = tf.reshape(images, [16, -1])
W = tf.Variable(tf.truncated_normal([32 * 32 * 3, NUM_CLASSES], stddev=0.01))
b = tf.Variable(tf.zeros([NUM_CLASSES]))
logits = tf.matmul(flat, W) + b
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    for step in range(10):
        _, loss_value, label_values, image_values = sess.run([train_op, loss, labels, images])
        print("step %d: loss %.5f labels %s pixel mean %.5f" % (step, loss_value, label_values[:8].tolist(),
                                                               image_values.mean()))
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=5)
