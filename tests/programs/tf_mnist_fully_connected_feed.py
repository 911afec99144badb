# TensorFlow's "MNIST for ML experts" feed example: mnist.py's inference (two ReLU hidden layers under name
# scopes, truncated_normal weights), loss (sparse softmax cross entropy), training (a loss summary,
# GradientDescentOptimizer, a global_step variable) and evaluation (in_top_k), driven by
# fully_connected_feed.py's run_training: placeholder_inputs, fill_feed_dict, merged summaries written by a
# FileWriter, a Saver checkpoint, and do_eval on the training, validation and test sets.
# After: tensorflow/tensorflow, tensorflow/examples/tutorials/mnist/mnist.py and fully_connected_feed.py
# (Apache 2.0, The TensorFlow Authors): same functions, names, hyper-parameters (hidden 128/32, learning rate
# 0.01, batch 100) and printed lines. Rewritten for this project rather than copied (Python 3). Edits: the
# import line; mnist.py's functions inlined; FLAGS -> a small namespace; MNIST -> the local stand-in
# `input_data`; 2000 steps -> 60 (status every 20, checkpoint and evaluation at 30 and the last step); the
# step duration dropped from the status line (times differ run to run); tf.set_random_seed(31); at the end
# the checkpoint state and the event file's loss summaries are read back.
import glob
import math
import os
import types

import tensorflow.compat.v1 as tf
import input_data

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE

FLAGS = types.SimpleNamespace(learning_rate=0.01, max_steps=60, hidden1=128, hidden2=32, batch_size=100,
                              input_data_dir="input_data", log_dir="logs/fully_connected_feed",
                              fake_data=False)


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
        logits = tf.matmul(hidden2, weights) + biases
    return logits


def loss(logits, labels):
    labels = tf.to_int64(labels)
    return tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)


def training(loss, learning_rate):
    tf.summary.scalar('loss', loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name='global_step', trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits, labels):
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def placeholder_inputs(batch_size):
    images_placeholder = tf.placeholder(tf.float32, shape=(batch_size, IMAGE_PIXELS))
    labels_placeholder = tf.placeholder(tf.int32, shape=(batch_size))
    return images_placeholder, labels_placeholder


def fill_feed_dict(data_set, images_pl, labels_pl):
    images_feed, labels_feed = data_set.next_batch(FLAGS.batch_size, FLAGS.fake_data)
    return {images_pl: images_feed, labels_pl: labels_feed}


def do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_set):
    true_count = 0
    steps_per_epoch = data_set.num_examples // FLAGS.batch_size
    num_examples = steps_per_epoch * FLAGS.batch_size
    for step in range(steps_per_epoch):
        feed_dict = fill_feed_dict(data_set, images_placeholder, labels_placeholder)
        true_count += sess.run(eval_correct, feed_dict=feed_dict)
    precision = float(true_count) / num_examples
    print('  Num examples: %d  Num correct: %d  Precision @ 1: %0.04f' % (num_examples, true_count, precision))


def run_training():
    data_sets = input_data.read_data_sets(FLAGS.input_data_dir, FLAGS.fake_data)
    with tf.Graph().as_default():
        tf.set_random_seed(31)
        images_placeholder, labels_placeholder = placeholder_inputs(FLAGS.batch_size)
        logits = inference(images_placeholder, FLAGS.hidden1, FLAGS.hidden2)
        loss_op = loss(logits, labels_placeholder)
        train_op = training(loss_op, FLAGS.learning_rate)
        eval_correct = evaluation(logits, labels_placeholder)
        summary = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        saver = tf.train.Saver()
        sess = tf.Session()
        summary_writer = tf.summary.FileWriter(FLAGS.log_dir, sess.graph)
        sess.run(init)
        for step in range(FLAGS.max_steps):
            feed_dict = fill_feed_dict(data_sets.train, images_placeholder, labels_placeholder)
            _, loss_value = sess.run([train_op, loss_op], feed_dict=feed_dict)
            if step % 20 == 0:
                print('Step %d: loss = %.2f' % (step, loss_value))
                summary_str = sess.run(summary, feed_dict=feed_dict)
                summary_writer.add_summary(summary_str, step)
                summary_writer.flush()
            if (step + 1) % 30 == 0 or (step + 1) == FLAGS.max_steps:
                checkpoint_file = os.path.join(FLAGS.log_dir, 'model.ckpt')
                saver.save(sess, checkpoint_file, global_step=step)
                print('Training Data Eval:')
                do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_sets.train)
                print('Validation Data Eval:')
                do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_sets.validation)
                print('Test Data Eval:')
                do_eval(sess, eval_correct, images_placeholder, labels_placeholder, data_sets.test)
        summary_writer.close()
        sess.close()


run_training()
state = tf.train.get_checkpoint_state(FLAGS.log_dir)
print("latest checkpoint:", os.path.relpath(state.model_checkpoint_path, FLAGS.log_dir),
      "of", [os.path.basename(p) for p in state.all_model_checkpoint_paths])
reader = tf.train.NewCheckpointReader(state.model_checkpoint_path)
print("saved:", sorted(reader.get_variable_to_shape_map().items()))
print("global_step:", reader.get_tensor("global_step"))
[event_file] = glob.glob(FLAGS.log_dir + "/events.out.tfevents.*")
for event in tf.train.summary_iterator(event_file):
    if not event.HasField("summary"):  # the file_version and graph events
        continue
    for value in event.summary.value:
        print("event step", event.step, value.tag, "%.4f" % value.simple_value)
