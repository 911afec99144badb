"""Tutorial 7: TF2's "Training checkpoints" guide, in TF1 graph mode: tf.Module, tf.train.Checkpoint, managers.

The guide's flow with ``import graph.compat.v1 as tf``: a ``tf.Module`` net whose variables are tracked by
attribute, ``tf.train.Checkpoint(step, optimizer, net)``, a ``CheckpointManager`` keeping three checkpoints,
training that resumes from the latest one, delayed restoration into objects built after ``restore()``,
and inspecting the files.  What is written is byte for byte what TensorFlow writes for the same program.
Run: ``python tutorials/07_tf2_checkpoints.py [--dir DIR]``.
"""

import os

import numpy as np
from _common import section, workdir

import graph.compat.v1 as tf


class Dense(tf.Module):
    """y = x @ kernel + bias."""

    def __init__(self, units, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.kernel = tf.Variable(tf.random_normal([1, units], seed=1), name="kernel")
            self.bias = tf.Variable(tf.zeros([units]), name="bias")

    @tf.Module.with_name_scope
    def __call__(self, x):
        return tf.matmul(x, self.kernel) + self.bias


class Net(tf.Module):
    """A simple linear model (the guide's Net)."""

    def __init__(self):
        super().__init__()
        self.l1 = Dense(5)

    def __call__(self, x):
        return self.l1(x)


def toy_data():
    inputs = np.arange(10, dtype=np.float32)[:, None]
    return inputs, inputs * 5.0 + np.arange(5, dtype=np.float32)[None, :]


def train_and_checkpoint(directory, steps=50):
    """Builds the program, restores the latest checkpoint if there is one, trains and saves every 10 steps."""
    tf.reset_default_graph()
    net = Net()
    inputs, labels = toy_data()
    loss = tf.reduce_mean(tf.abs(net(tf.constant(inputs)) - labels))
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss)
    step = tf.Variable(1, name="step")
    increment = step.assign_add(1)
    ckpt = tf.train.Checkpoint(step=step, optimizer=opt, net=net)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(directory, "tf_ckpts"), max_to_keep=3)
    with tf.Session() as sess:
        status = ckpt.restore(manager.latest_checkpoint)
        status.initialize_or_restore(sess)  # restores, or initializes when there is no checkpoint yet
        if manager.latest_checkpoint:
            print("Restored from", os.path.relpath(manager.latest_checkpoint, directory))
        else:
            print("Initializing from scratch.")
        for _ in range(steps):
            _, loss_value = sess.run([train, loss])
            current = sess.run(increment)
            if current % 10 == 0:
                save_path = manager.save()  # uses the default session, as in graph-mode TF
                print("Saved checkpoint for step {}: {}".format(current, os.path.relpath(save_path, directory)))
                print("loss {:1.2f}".format(loss_value))
        print("kept:", [os.path.basename(p) for p in manager.checkpoints])


with workdir(__doc__.splitlines()[0]) as directory:
    section("Train from scratch, saving every 10 steps (the manager keeps 3)")
    train_and_checkpoint(directory)

    section("Run again: the same program resumes from the latest checkpoint")
    train_and_checkpoint(directory)

    section("What the checkpoint holds: object paths, not variable names")
    latest = tf.train.latest_checkpoint(os.path.join(directory, "tf_ckpts"))
    for key, shape in tf.train.list_variables(latest):
        print(f"  {key:70s} {shape}")
    reader = tf.train.load_checkpoint(latest)
    print("step =", reader.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE"))

    section("Delayed restoration: restore first, build the objects afterwards")
    tf.reset_default_graph()
    to_restore = tf.Variable(tf.zeros([5]), name="to_restore")
    fake_layer = tf.train.Checkpoint(bias=to_restore)
    fake_net = tf.train.Checkpoint(l1=fake_layer)
    new_root = tf.train.Checkpoint(net=fake_net)
    status = new_root.restore(latest)
    status.assert_existing_objects_matched()  # the bias matched; nothing else exists yet
    delayed_restore = tf.Variable(tf.zeros([1, 5]), name="delayed")
    fake_layer.kernel = delayed_restore  # tracked after restore(): matched when the status runs
    with tf.Session() as sess:
        status.run_restore_ops(sess)
        print("to_restore =", np.round(sess.run(to_restore), 2))
        print("kernel restored after the fact =", np.round(sess.run(delayed_restore), 2))
    try:
        status.assert_consumed()
    except AssertionError as error:  # the optimizer and step were never built here
        print("assert_consumed:", str(error).splitlines()[0])
    status.expect_partial()

    print("\nDone. Convert TF1 checkpoints to this format with `tf1-saver to-object` (see README).")
