"""Tutorial 6: training — fit a line with gradient descent, then train an MLP with Adam, save, restart, resume.

The TF1 guides' training loop: a loss, ``optimizer.minimize(loss, global_step=...)``, ``sess.run``
in a loop, and a ``tf.train.Saver`` that saves every N steps so that a restarted program picks up
from ``tf.train.latest_checkpoint``.  Run: ``python tutorials/06_training.py [--dir DIR]``.
"""

import os

import numpy as np
from _common import section, workdir

import graph.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf

TOTAL_STEPS, SAVE_EVERY, CRASH_AT = 60, 20, 45
BATCH = 100


def batch(step: int):
    """Synthetic MNIST-shaped data: the batch for a given step (a restarted run sees the same batches)."""
    rng = np.random.RandomState(step)
    images = rng.rand(BATCH, 784).astype(np.float32)
    labels = (images[:, :10] > 0.5).argmax(axis=1)  # a learnable rule: the first bright pixel among 10
    return images, np.eye(10, dtype=np.float32)[labels]


def build_mlp():
    """784-256-10 MLP, its Adam train op and a Saver, in a fresh default graph."""
    tf.reset_default_graph()
    tf.set_random_seed(0)
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("kernel", [784, 256], initializer=tf.glorot_uniform_initializer())
        b1 = tf.get_variable("bias", [256], initializer=tf.zeros_initializer())
    with tf.variable_scope("logits"):
        w2 = tf.get_variable("kernel", [256, 10], initializer=tf.glorot_uniform_initializer())
        b2 = tf.get_variable("bias", [10], initializer=tf.zeros_initializer())
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.001).minimize(loss, global_step=global_step)
    saver = tf.train.Saver(max_to_keep=2)  # after the optimizer: Adam's slots and beta powers are saved too
    return x, y, loss, global_step, train_op, saver


def train(sess, model, stop_at: int, checkpoint_dir=None) -> float:
    """Runs train steps from the current global step up to ``stop_at``; saves every SAVE_EVERY steps."""
    x, y, loss, global_step, train_op, saver = model
    step, value = sess.run(global_step), None
    while step < stop_at:
        images, labels = batch(step)
        _, value, step = sess.run([train_op, loss, global_step], {x: images, y: labels})
        if step % SAVE_EVERY == 0:
            print(f"  step {step:3d}  loss {value:.4f}", end="")
            if checkpoint_dir:
                print("  saved", os.path.basename(saver.save(sess, os.path.join(checkpoint_dir, "model.ckpt"),
                                                             global_step=step)), end="")
            print()
    return value


with workdir(__doc__.splitlines()[0]) as directory:
    section("Linear regression: y = 3x + 2 plus noise, fitted by GradientDescentOptimizer")
    rng = np.random.RandomState(0)
    x_data = rng.rand(100).astype(np.float32)
    y_data = 3.0 * x_data + 2.0 + rng.normal(0.0, 0.05, 100).astype(np.float32)
    W = tf.Variable(tf.zeros([1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    mse = tf.reduce_mean(tf.square(W * x_data + b - y_data))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(mse)
    added = [op for op in tf.get_default_graph().get_operations() if op.name.startswith(("gradients/", "GradientDescent"))]
    print(f"minimize() added {len(added)} ops: the gradient graph and the update,",
          sorted({op.type for op in added if op.name.startswith("GradientDescent/")}))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(1, 201):
            sess.run(train_step)
            if step % 50 == 0:
                print(f"  step {step:3d}  loss {sess.run(mse):.6f}")
        fitted_w, fitted_b = sess.run([W, b])
    print(f"fitted W = {fitted_w[0]:.3f}, b = {fitted_b[0]:.3f} (the data says 3 and 2)")

    section("An MLP trained with Adam; a Saver writes a checkpoint every 20 steps")
    checkpoint_dir = os.path.join(directory, "train")
    os.makedirs(checkpoint_dir)
    model = build_mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        train(sess, model, CRASH_AT, checkpoint_dir)
        print(f"...the program stops at step {sess.run(model[3])}: the last checkpoint is from step 40")

    section("Restart: a new graph and session resume from tf.train.latest_checkpoint")
    model = build_mlp()
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    print("latest checkpoint:", os.path.basename(latest))
    # A new Saver knows nothing of older files: hand it their names, so max_to_keep keeps counting them.
    model[5].recover_last_checkpoints(tf.train.get_checkpoint_state(checkpoint_dir).all_model_checkpoint_paths)
    with tf.Session() as sess:
        model[5].restore(sess, latest)  # restores weights, Adam's m and v, its beta powers and the global step
        print("resumed at global_step =", sess.run(model[3]))
        resumed = train(sess, model, TOTAL_STEPS, checkpoint_dir)
    print("checkpoints kept (max_to_keep=2):",
          [os.path.basename(p) for p in tf.train.get_checkpoint_state(checkpoint_dir).all_model_checkpoint_paths])

    section("Was anything lost? The same 60 steps without a restart")
    model = build_mlp()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        straight = train(sess, model, TOTAL_STEPS)
    print(f"loss at step 60: resumed {resumed:.6f}, uninterrupted {straight:.6f}, identical: {resumed == straight}")
    print("\nDone.")
