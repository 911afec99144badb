# The TF1 guide's saving and restoring: variables, assign ops, save, restore all, restore by name.
# After: the TensorFlow 1.x programmer's guide "Variables" / "Save and Restore" (tensorflow/docs,
# site/en/r1/guide/saved_model.md, Apache 2.0, The TensorFlow Authors): same v1/v2 get_variable with
# zeros_initializer, inc_v1 = v1.assign(v1+1), dec_v2 = v2.assign(v2-1), saver.save(sess, path),
# a reset graph and saver.restore, then a Saver({"v2": v2}) restoring one variable by name. Rewritten
# for this project rather than copied. Edits: the import line; "/tmp/model.ckpt" -> "model.ckpt" (the
# harness runs each program in its own temporary directory). No random numbers: no seed needed.
import tensorflow.compat.v1 as tf

v1 = tf.get_variable("v1", shape=[3], initializer=tf.zeros_initializer)
v2 = tf.get_variable("v2", shape=[5], initializer=tf.zeros_initializer)

inc_v1 = v1.assign(v1 + 1)
dec_v2 = v2.assign(v2 - 1)

init_op = tf.global_variables_initializer()
saver = tf.train.Saver()

with tf.Session() as sess:
    sess.run(init_op)
    inc_v1.op.run()
    dec_v2.op.run()
    save_path = saver.save(sess, "model.ckpt")
    print("Model saved in path: %s" % save_path)

tf.reset_default_graph()

v1 = tf.get_variable("v1", shape=[3])
v2 = tf.get_variable("v2", shape=[5])
saver = tf.train.Saver()

with tf.Session() as sess:
    saver.restore(sess, "model.ckpt")
    print("Model restored.")
    print("v1 : %s" % v1.eval())
    print("v2 : %s" % v2.eval())

tf.reset_default_graph()

v1 = tf.get_variable("v1", [3], initializer=tf.zeros_initializer)
v2 = tf.get_variable("v2", [5], initializer=tf.zeros_initializer)
saver = tf.train.Saver({"v2": v2})

with tf.Session() as sess:
    v1.initializer.run()
    saver.restore(sess, "model.ckpt")
    print("v1 : %s" % v1.eval())
    print("v2 : %s" % v2.eval())
