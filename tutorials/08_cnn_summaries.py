"""Tutorial 8: a CNN with tf.layers, TensorBoard summaries, and a Saver — the TF1 "layers" tutorial, small.

A convolutional classifier built from ``tf.layers`` (conv2d, max_pooling2d, batch_normalization,
flatten, dense, dropout) learns where a bright square sits in a 12x12 image (four classes: the
quadrants).  While training, ``tf.summary`` ops (scalar, histogram, image) merged by ``merge_all``
go to a ``tf.summary.FileWriter`` that also holds the graph: ``tensorboard --logdir DIR/logs``
shows them.  A Saver checkpoints the model; a fresh graph restores it and scores the same.
Run: ``python tutorials/08_cnn_summaries.py [--dir DIR]``.
"""

import os

import numpy as np
from _common import section, workdir

import graph.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf

SIZE, CLASSES, BATCH, STEPS = 12, 4, 32, 60


def make_batch(rng: np.random.RandomState, size: int = BATCH):
    """Noisy dark images, each with a bright 3x3 square in one quadrant; the label is the quadrant."""
    labels = rng.randint(0, CLASSES, size)
    images = rng.rand(size, SIZE, SIZE, 1).astype(np.float32) * 0.3
    for image, label in zip(images, labels):
        top = rng.randint(0, SIZE // 2 - 2) + (SIZE // 2 if label >= 2 else 0)
        left = rng.randint(0, SIZE // 2 - 2) + (SIZE // 2 if label % 2 else 0)
        image[top:top + 3, left:left + 3, 0] = 1.0
    return images, labels.astype(np.int32)


def build_model():
    """The CNN, its loss, accuracy, Adam train op, merged summaries and a Saver, in a fresh default graph."""
    tf.reset_default_graph()
    tf.set_random_seed(1)
    images = tf.placeholder(tf.float32, [None, SIZE, SIZE, 1], name="images")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    training = tf.placeholder_with_default(False, [], name="training")
    net = tf.layers.conv2d(images, 8, 3, padding="same", activation=tf.nn.relu)       # conv2d/kernel
    net = tf.layers.max_pooling2d(net, 2, 2)                                            # 6x6x8
    net = tf.layers.conv2d(net, 16, 3, padding="same", use_bias=False)                 # conv2d_1/kernel
    net = tf.nn.relu(tf.layers.batch_normalization(net, training=training))            # fused, moving stats
    net = tf.layers.max_pooling2d(net, 2, 2)                                            # 3x3x16
    net = tf.layers.dense(tf.layers.flatten(net), 32, activation=tf.nn.relu)
    net = tf.layers.dropout(net, rate=0.2, training=training, seed=7)
    logits = tf.layers.dense(net, CLASSES, name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    correct = tf.nn.in_top_k(logits, labels, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    global_step = tf.train.get_or_create_global_step()
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):  # batch norm's moving averages
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    tf.summary.histogram("conv1_kernel", tf.get_default_graph().get_tensor_by_name("conv2d/kernel:0"))
    tf.summary.image("inputs", images, max_outputs=2)
    return {"images": images, "labels": labels, "training": training, "logits": logits, "loss": loss,
            "accuracy": accuracy, "train_op": train_op, "global_step": global_step,
            "summaries": tf.summary.merge_all(), "saver": tf.train.Saver()}


with workdir(__doc__.splitlines()[0]) as directory:
    section("The model: tf.layers names its variables by layer, as TensorFlow does")
    model = build_model()
    for variable in tf.global_variables():
        if "Adam" not in variable.name and "power" not in variable.name:
            print(f"  {variable.name:40s} {variable.shape.as_list()}")
    print("UPDATE_OPS:", [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)])

    section(f"Training {STEPS} steps with Adam; summaries every 10 steps go to a FileWriter")
    logdir = os.path.join(directory, "logs")
    rng = np.random.RandomState(0)
    test_images, test_labels = make_batch(np.random.RandomState(99), 200)
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, sess.graph)  # writes the graph first
        sess.run(tf.global_variables_initializer())
        for step in range(1, STEPS + 1):
            images, labels = make_batch(rng)
            feed = {model["images"]: images, model["labels"]: labels, model["training"]: True}
            if step % 10 == 0:
                _, loss, summary = sess.run([model["train_op"], model["loss"], model["summaries"]], feed)
                writer.add_summary(summary, global_step=step)
                print(f"  step {step:2d}  loss {loss:.4f}")
            else:
                sess.run(model["train_op"], feed)
        writer.close()
        test_feed = {model["images"]: test_images, model["labels"]: test_labels}
        trained_accuracy = sess.run(model["accuracy"], test_feed)
        checkpoint = model["saver"].save(sess, os.path.join(directory, "cnn.ckpt"),
                                         global_step=model["global_step"])
    print(f"test accuracy after training: {trained_accuracy:.3f} (chance is {1 / CLASSES:.2f})")
    print("saved:", os.path.basename(checkpoint))

    section("What TensorBoard will read: the event file, record by record")
    event_files = sorted(os.listdir(logdir))
    print("event file:", event_files[0].split(".")[0] + ".out.tfevents.<time>.<host>")
    tags, graphs = {}, 0
    for event in tf.train.summary_iterator(os.path.join(logdir, event_files[0])):
        graphs += bool(event.graph_def)
        for value in event.summary.value if event.summary else ():
            tags.setdefault(value.tag, []).append(event.step)
    print("graph records:", graphs)
    for tag, steps in sorted(tags.items()):
        print(f"  {tag:22s} at steps {steps}")

    section("Restore into a fresh graph: the same accuracy, in inference mode")
    model = build_model()
    with tf.Session() as sess:
        model["saver"].restore(sess, checkpoint)
        restored_accuracy = sess.run(model["accuracy"], {model["images"]: test_images,
                                                          model["labels"]: test_labels})
        step = sess.run(model["global_step"])
    print(f"restored at step {step}: accuracy {restored_accuracy:.3f}, "
          f"same as before saving: {restored_accuracy == trained_accuracy}")
    print("\nDone.")
