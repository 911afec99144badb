"""Tutorial 5: the command line (``python -m saver`` or ``tf1-saver``) on a checkpoint.

Each step prints the command, then its output and exit code.  To keep the tutorial quick the
commands run inside this process (``saver.cli.main``, what the ``tf1-saver`` script calls); typed
in a shell they print the same.  Run: ``python tutorials/05_command_line.py [--dir DIR]``.
"""

import os
import shlex
import sys

from _common import TF2_GUIDE_CHECKPOINT, section, workdir

import graph.compat.v1 as tf
from saver.cli import main


def tf1_saver(*arguments: str) -> int:
    """Runs `tf1-saver ARGS...`, printing the command line and its output; returns the exit code."""
    print("$ tf1-saver " + " ".join(shlex.quote(a) for a in arguments))
    sys.stdout.flush()
    code = main(list(arguments), out=sys.stdout, err=sys.stdout)
    print(f"(exit code {code})")
    return code


with workdir(__doc__.splitlines()[0]) as directory:
    section("A checkpoint to look at: two layers, saved twice")
    with tf.variable_scope("layer1"):
        kernel = tf.get_variable("kernel", [4, 3], initializer=tf.ones_initializer())
    with tf.variable_scope("layer2"):
        tf.get_variable("kernel", [3, 2], initializer=tf.zeros_initializer())
    step = tf.train.get_or_create_global_step()
    saver = tf.train.Saver()
    train_dir = os.path.join(directory, "train")
    os.makedirs(train_dir)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, os.path.join(train_dir, "model.ckpt"), global_step=1)
        sess.run([kernel.assign(kernel * 3.0), step.assign(2)])
        second = saver.save(sess, os.path.join(train_dir, "model.ckpt"), global_step=2)

    section("inspect: keys, dtypes, shapes, sizes (a directory means its newest checkpoint)")
    tf1_saver("inspect", train_dir)
    section("inspect --tensor_name: one tensor's values (TF's inspect_checkpoint flags)")
    tf1_saver("inspect", second, "--tensor_name", "layer1/kernel")
    section("diff: what changed between two checkpoints (exit code 1: they differ)")
    tf1_saver("diff", first, second)
    section("rename --dry-run: see a rename before writing it")
    tf1_saver("rename", second, "--regex", "^layer(\\d)/", "dense_\\1/", "--dry-run")
    section("keep: a new checkpoint with a subset of the keys")
    tf1_saver("keep", second, "layer1/*", "-o", os.path.join(directory, "layer1_only"))
    section("export: to safetensors (and `import` back)")
    tf1_saver("export", second, os.path.join(directory, "weights.safetensors"))
    tf1_saver("import", os.path.join(directory, "weights.safetensors"), "-o", os.path.join(directory, "imported"))
    section("meta: the graph saved next to the checkpoint")
    tf1_saver("meta", second + ".meta")
    section("tree and picture: a TF2 checkpoint's object graph")
    tf1_saver("tree", TF2_GUIDE_CHECKPOINT)
    tf1_saver("picture", TF2_GUIDE_CHECKPOINT, "-o", os.path.join(directory, "tf2_guide.svg"))
    section("errors: one line, and an exit code that says what went wrong")
    tf1_saver("inspect", os.path.join(directory, "no_such_checkpoint"))
    print("\nExit codes: 0 ok, 1 diff found differences, 2 usage, 3 not found, 4 damaged input,")
    print("5 optional package or program missing, 6 refused (output exists / name clash). Done.")
