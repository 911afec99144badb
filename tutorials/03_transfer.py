"""Tutorial 3: restore the first layers of a trained 5-layer network into a 6-layer one.

A common TF1 task: a bigger model reuses what a smaller one learned.  Three ways, from the most
explicit to the most automatic: a Saver over the shared variables, ``tf.train.init_from_checkpoint``
(initializers that load from the checkpoint), and ``restore_matching`` (restore what matches and
report the rest).  Run: ``python tutorials/03_transfer.py [--dir DIR]``.
"""

import os

import numpy as np
from _common import section, workdir

import graph.compat.v1 as tf
from saver.restore import restore_matching

WIDTHS = [4, 8, 8, 8, 8, 3]  # input, four hidden layers, output: 5 layers of weights


def network(layers: int, widths):
    """A dense network: layer1..layerN, each with a kernel and a bias (tf.get_variable names)."""
    x = tf.placeholder(tf.float32, [None, widths[0]], name="x")
    h = x
    for i in range(layers):
        with tf.variable_scope(f"layer{i + 1}"):
            kernel = tf.get_variable("kernel", [widths[i], widths[i + 1]],
                                     initializer=tf.glorot_uniform_initializer(seed=i))
            bias = tf.get_variable("bias", [widths[i + 1]], initializer=tf.zeros_initializer())
            h = tf.matmul(h, kernel) + bias
            if i < layers - 1:
                h = tf.nn.relu(h)
    return x, h


with workdir(__doc__.splitlines()[0]) as directory:
    section("Train (pretend) and save a 5-layer network")
    x, y = network(5, WIDTHS)
    bumps = [v.assign_add(tf.ones_like(v)) for v in tf.trainable_variables()]  # stands in for training
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(bumps)
        trained = {v.op.name: sess.run(v) for v in tf.trainable_variables()}
        small = tf.train.Saver().save(sess, os.path.join(directory, "five_layers.ckpt"))
    print("saved", small, "with", [name for name, _ in tf.train.list_variables(small)])

    section("A 6-layer network: layers 1-4 as before, layer5 now 8 wide, a new layer6")
    tf.reset_default_graph()
    x, y = network(6, WIDTHS[:-1] + [8, 3])  # layer5 now outputs 8, and layer6 maps 8 -> 3
    shared = [v for v in tf.global_variables() if v.op.name.split("/")[0] in ("layer1", "layer2", "layer3", "layer4")]
    print("variables:", [v.op.name for v in tf.global_variables()])

    section("Way 1: a Saver over the variables both networks share, then initialize the rest")
    with tf.Session() as sess:
        tf.train.Saver(shared).restore(sess, small)
        rest = [v for v in tf.global_variables() if v not in shared]
        sess.run(tf.variables_initializer(rest))
        print("layer1/kernel restored:", bool(np.array_equal(sess.run(shared[0]), trained["layer1/kernel"])))
        print("uninitialized:", list(sess.run(tf.report_uninitialized_variables())))

    section("Way 2: init_from_checkpoint rewires initializers; one global initializer does it all")
    tf.train.init_from_checkpoint(small, {f"layer{i}/": f"layer{i}/" for i in range(1, 5)})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = tf.get_default_graph().get_tensor_by_name("layer4/kernel:0")
        print("layer4/kernel from the checkpoint:", bool(np.array_equal(sess.run(kernel), trained["layer4/kernel"])))

    section("Way 3: restore whatever matches, with a report of the rest")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        report = restore_matching(sess, small)
        print(report)
        features = sess.run(y, {x: np.ones((2, 4), np.float32)})
        print("the 6-layer network runs: output shape", features.shape)
    print("\nDone. Next: tutorials/04_tf2_checkpoint.py")
