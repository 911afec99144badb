"""Tutorial 9: an input pipeline inside a managed training loop — killed, restarted, resumed.

Training data in a TFRecord file of ``tf.train.Example`` records, read with ``tf.data`` inside a
``tf.train.MonitoredTrainingSession`` that saves a checkpoint every 20 steps.  A first process is killed
(``os._exit``: no hooks run, no final save) at step 45; a second one restores ``model.ckpt-40`` by itself
and trains on to step 60.  Then the same file through TF1's queues: ``string_input_producer``,
``TFRecordReader``, ``shuffle_batch`` and queue runners, which the managed session starts, and whose end
of input (OutOfRangeError) ends the loop cleanly.  Run: ``python tutorials/09_input_pipeline.py [--dir DIR]``.
"""

import os
import subprocess
import sys

import numpy as np
from _common import section, workdir

import graph.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf

RECORDS, BATCH, TOTAL_STEPS, SAVE_EVERY, KILL_AT = 256, 32, 60, 20, 45
FEATURES = {"x": tf.FixedLenFeature([], tf.float32), "y": tf.FixedLenFeature([], tf.float32)}


def write_records(path: str) -> None:
    """y = 3x - 1 plus a little noise, one tf.train.Example per point."""
    rng = np.random.RandomState(0)
    with tf.python_io.TFRecordWriter(path) as writer:
        for x in rng.rand(RECORDS):
            y = 3.0 * x - 1.0 + 0.01 * rng.randn()
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[x])),
                "y": tf.train.Feature(float_list=tf.train.FloatList(value=[y]))}))
            writer.write(example.SerializeToString())


def linear_model(x, y):
    """w * x + b, its squared loss and a gradient-descent train op stepping the global step."""
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(w * x + b - y))
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step)
    return w, b, loss, step, train_op


class KillAt(tf.train.SessionRunHook):
    """Ends the process abruptly after step ``KILL_AT``, as a preempted job would end."""

    def __init__(self, step):
        self._step = step

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= KILL_AT:
            print(f"   (child) killed at step {KILL_AT}", flush=True)
            os._exit(17)  # like SIGKILL: no hook's end() runs, the last checkpoint stays model.ckpt-40


def train(directory: str, records: str, kill: bool) -> None:
    """The training program: tf.data input, MonitoredTrainingSession, checkpoints every SAVE_EVERY steps."""
    tf.reset_default_graph()
    dataset = (tf.data.TFRecordDataset(records)
               .map(lambda record: tf.parse_single_example(record, FEATURES))
               .shuffle(RECORDS, seed=1).repeat().batch(BATCH))
    batch = dataset.make_one_shot_iterator().get_next()
    w, b, loss, step, train_op = linear_model(batch["x"], batch["y"])
    final = tf.train.FinalOpsHook([w, b])  # runs when the session ends: the fitted values
    hooks = [tf.train.StopAtStepHook(last_step=TOTAL_STEPS), final] + ([KillAt(step)] if kill else [])
    with tf.train.MonitoredTrainingSession(checkpoint_dir=directory, save_checkpoint_steps=SAVE_EVERY,
                                           save_summaries_steps=None, log_step_count_steps=None,
                                           hooks=hooks) as sess:
        first = sess.run(step)
        print(f"   {'started' if first == 0 else 'resumed'} at global_step = {first}")
        while not sess.should_stop():
            _, value, current = sess.run([train_op, loss, step])
    fitted_w, fitted_b = final.final_ops_values
    print(f"   finished at step {current}: loss = {value:.5f}, fitted w = {fitted_w:.2f}, b = {fitted_b:.2f}")


def queue_pipeline(records: str) -> None:
    """The same records through TF1's queues, one epoch, inside a MonitoredTrainingSession."""
    tf.reset_default_graph()
    filenames = tf.train.string_input_producer([records], num_epochs=1, seed=2)
    _, serialized = tf.TFRecordReader().read(filenames)
    example = tf.parse_single_example(serialized, FEATURES)
    xs, ys = tf.train.shuffle_batch([example["x"], example["y"]], BATCH, capacity=4 * BATCH,
                                    min_after_dequeue=BATCH, seed=3, allow_smaller_final_batch=True)
    seen = tf.Variable(0, name="seen", trainable=False)
    count = tf.assign_add(seen, tf.size(xs))
    with tf.train.MonitoredTrainingSession() as sess:  # starts the queue runners, initializes num_epochs' local
        batches = 0
        while not sess.should_stop():
            total = sess.run(count)
            batches += 1
    print(f"   queue pipeline read {total} records in {batches} batches; OutOfRangeError ended the loop cleanly")
    print(f"   queue runners in the graph: {[qr.name for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]}")


def main() -> None:
    if os.environ.get("TUTORIAL09_CHILD"):  # the first, doomed training process
        train(os.environ["TUTORIAL09_CHILD"], os.environ["TUTORIAL09_RECORDS"], kill=True)
        return
    with workdir(__doc__.splitlines()[0]) as directory:
        section("A TFRecord file of tf.train.Example records")
        records = os.path.join(directory, "points.tfrecord")
        write_records(records)
        print(f"   wrote {RECORDS} examples to points.tfrecord ({os.path.getsize(records)} bytes)")
        first = next(tf.python_io.tf_record_iterator(records))
        print(f"   first record parses to x = {tf.train.Example.FromString(first).features.feature['x'].float_list.value[0]:.4f}")

        section(f"Training in a child process, killed at step {KILL_AT}")
        checkpoints = os.path.join(directory, "train")
        child = subprocess.run([sys.executable, __file__], capture_output=True, text=True, check=False,
                               env={**os.environ, "TUTORIAL09_CHILD": checkpoints, "TUTORIAL09_RECORDS": records})
        print(child.stdout.rstrip())
        print(f"   child exit code: {child.returncode}")
        print(f"   latest checkpoint: {os.path.basename(tf.train.latest_checkpoint(checkpoints))}")

        section("Restart: the managed session restores the latest checkpoint by itself")
        train(checkpoints, records, kill=False)
        state = tf.train.get_checkpoint_state(checkpoints)
        print(f"   checkpoints kept: {[os.path.basename(p) for p in state.all_model_checkpoint_paths]}")

        section("The same file through queues and queue runners")
        queue_pipeline(records)


if __name__ == "__main__":
    main()
