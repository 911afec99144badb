# TensorFlow's "Reading data" example with preloaded data in variables and a queue-based input pipeline:
# the training set held in two non-trainable Variables (collections=[]) initialized from placeholders,
# tf.train.slice_input_producer(num_epochs=...) shuffling their slices, tf.train.batch, queue runners started
# under a Coordinator, training until the epoch limit's OutOfRangeError, a Saver checkpoint at the end.
# After: tensorflow/tensorflow, tensorflow/examples/how_tos/reading_data/fully_connected_preloaded_var.py,
# with tensorflow/examples/tutorials/mnist/mnist.py (Apache 2.0, The TensorFlow Authors): same run_training
# (its double step increment on status steps included), hyper-parameters (learning rate 0.01, 2 epochs,
# hidden 128/32, batch 100) and printed lines. Rewritten for this project rather than copied (Python 3).
# Edits: the import line; mnist.py's functions inlined; FLAGS -> a namespace; MNIST -> the local stand-in
# `input_data`; the step duration dropped from the status line; status every 5 steps; tf.set_random_seed(43)
# (the producer's shuffle draws from the graph seed); the checkpoint's contents printed at the end.
import math
import types

import tensorflow.compat.v1 as tf
import input_data

NUM_CLASSES = 10
IMAGE_PIXELS = 784
FLAGS = types.SimpleNamespace(learning_rate=0.01, num_epochs=2, hidden1=128, hidden2=32, batch_size=100,
                              train_dir='data', fake_data=False)


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


def evaluation(logits, labels):
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def run_training():
    data_sets = input_data.read_data_sets(FLAGS.train_dir, FLAGS.fake_data)
    with tf.Graph().as_default():
        tf.set_random_seed(43)
        with tf.name_scope('input'):
            images_initializer = tf.placeholder(dtype=data_sets.train.images.dtype,
                                                shape=data_sets.train.images.shape)
            labels_initializer = tf.placeholder(dtype=data_sets.train.labels.dtype,
                                                shape=data_sets.train.labels.shape)
            input_images = tf.Variable(images_initializer, trainable=False, collections=[])
            input_labels = tf.Variable(labels_initializer, trainable=False, collections=[])
            image, label = tf.train.slice_input_producer([input_images, input_labels],
                                                         num_epochs=FLAGS.num_epochs)
            label = tf.cast(label, tf.int32)
            images, labels = tf.train.batch([image, label], batch_size=FLAGS.batch_size)

        logits = inference(images, FLAGS.hidden1, FLAGS.hidden2)
        loss_op = loss(logits, labels)
        train_op = training(loss_op, FLAGS.learning_rate)
        eval_correct = evaluation(logits, labels)
        summary_op = tf.summary.merge_all()
        saver = tf.train.Saver()
        init_op = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())

        sess = tf.Session()
        sess.run(init_op)
        sess.run(input_images.initializer, feed_dict={images_initializer: data_sets.train.images})
        sess.run(input_labels.initializer, feed_dict={labels_initializer: data_sets.train.labels})
        summary_writer = tf.summary.FileWriter(FLAGS.train_dir, sess.graph)

        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            step = 0
            while not coord.should_stop():
                _, loss_value = sess.run([train_op, loss_op])
                if step % 5 == 0:
                    print('Step %d: loss = %.2f' % (step, loss_value))
                    summary_str = sess.run(summary_op)
                    summary_writer.add_summary(summary_str, step)
                    step += 1
                if (step + 1) % 1000 == 0:
                    print('Saving')
                    saver.save(sess, FLAGS.train_dir, global_step=step)
                step += 1
        except tf.errors.OutOfRangeError:
            print('Saving')
            saver.save(sess, FLAGS.train_dir, global_step=step)
            print('Done training for %d epochs, %d steps.' % (FLAGS.num_epochs, step))
        finally:
            coord.request_stop()
        coord.join(threads)
        sess.close()
        summary_writer.close()
        print("queue runners:", [qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)])
        print("local variables:", [v.name for v in tf.local_variables()])


run_training()
reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint('.'))
print("checkpoint:", tf.train.latest_checkpoint('.'), sorted(reader.get_variable_to_shape_map()))
print("global_step:", reader.get_tensor('global_step'))
