"""Tutorial 1: variables — create, place on devices, initialize, save, restore, rename, save a subset.

The story of TensorFlow 1.x's guide "Variables: creation, initialization, saving and restoring",
with one change to its code: the import line.  Run: ``python tutorials/01_variables.py [--dir DIR]``.
"""

import os

from _common import section, workdir

import graph.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf

with workdir(__doc__.splitlines()[0]) as directory:
    section("Creation: a Variable is ops in a graph, nothing is computed yet")
    weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35), name="weights")
    biases = tf.Variable(tf.zeros([200]), name="biases")
    print("weights:", weights.name, weights.dtype.name, weights.shape)
    print("its ops:", [op.name for op in tf.get_default_graph().get_operations() if op.name.startswith("weights")])

    section("Device placement: recorded on every op")
    with tf.Graph().as_default():  # a graph of its own: a local Session has no /job:ps (TF refuses to run it)
        with tf.device("/cpu:0"):
            on_cpu = tf.Variable(tf.ones([3]), name="on_cpu")
        with tf.device("/job:ps/task:0"):
            on_ps = tf.Variable(tf.ones([3]), name="on_ps")
        print(on_cpu.name, "->", on_cpu.device)
        print(on_ps.name, "->", on_ps.device)

    section("Initialization from another variable: initialized_value()")
    w2 = tf.Variable(weights.initialized_value(), name="w2")
    w_twice = tf.Variable(weights.initialized_value() * 2.0, name="w_twice")
    init_op = tf.global_variables_initializer()  # created after every variable: it covers them all
    with tf.Session() as sess:
        sess.run(init_op)  # the initializers may run in any order: initialized_value() makes it safe
        w, copy, twice = sess.run([weights, w2, w_twice])
        print("w2 == weights:", bool((copy == w).all()), "| w_twice == 2 * weights:", bool((twice == 2 * w).all()))

        section("Saving: a Saver adds save/restore ops; save() writes a TensorFlow checkpoint")
        saver = tf.train.Saver()
        save_path = saver.save(sess, os.path.join(directory, "model.ckpt"))
        print("Model saved in path:", save_path)
        print("files:", sorted(f for f in os.listdir(directory) if f.startswith("model.ckpt")))
        for name, shape in tf.train.list_variables(save_path):
            print(f"  {name:10s} {shape}")
        saved_weights = w

    section("Restoring: no initializer needed, the saver's restore op assigns every variable")
    with tf.Session() as sess:
        saver.restore(sess, save_path)
        print("weights restored:", bool((sess.run(weights) == saved_weights).all()))

    section("Choosing names: a dict maps checkpoint names to variables")
    tf.reset_default_graph()
    v1 = tf.get_variable("v1", shape=[3], initializer=tf.zeros_initializer())
    v2 = tf.get_variable("v2", shape=[5], initializer=tf.zeros_initializer())
    inc_v1, dec_v2 = v1.assign(v1 + 1), v2.assign(v2 - 1)
    renaming_saver = tf.train.Saver({"my_v2": v2})  # v2 is saved under the name "my_v2"
    subset_saver = tf.train.Saver([v1])             # a subset: only v1
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([inc_v1, dec_v2])
        renamed_path = renaming_saver.save(sess, os.path.join(directory, "renamed.ckpt"))
        subset_path = subset_saver.save(sess, os.path.join(directory, "subset.ckpt"))
    print("renamed.ckpt holds:", tf.train.list_variables(renamed_path))
    print("subset.ckpt holds: ", tf.train.list_variables(subset_path))

    section("Restoring a subset: the other variables still need their initializer")
    with tf.Session() as sess:
        v2.initializer.run()
        subset_saver.restore(sess, subset_path)
        print("v1 =", sess.run(v1), "(restored) | v2 =", sess.run(v2), "(initialized)")
    print("\nDone. Next: tutorials/02_uninitialized.py")
