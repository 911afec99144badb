"""Regenerates the pictures the README shows (tutorials/images/*.svg); tests/test_tutorials.py checks them.

Run: ``python tutorials/make_images.py [--dir DIR]`` (default: write into tutorials/images/).
"""

import argparse
import os

from _common import HERE, TF2_GUIDE_CHECKPOINT

import graph.compat.v1 as tf
from graph.viz import picture as graph_picture
from saver.storage import picture as saver_picture

IMAGES = os.path.join(HERE, "images")


def make_images(directory: str) -> list:
    """Writes tf2_guide.svg and variables.svg into ``directory``; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    guide = saver_picture.write(os.path.join(directory, "tf2_guide.svg"), TF2_GUIDE_CHECKPOINT,
                                title="TF2 guide checkpoint: optimizer red, variables blue, slot variables orange")
    with tf.Graph().as_default() as graph:  # the TF1 variables guide, on two devices
        with tf.device("/job:ps/task:0"):
            weights = tf.Variable(tf.random_normal([784, 200], stddev=0.35), name="weights")
        with tf.device("/job:worker/task:0"):
            tf.Variable(tf.zeros([200]), name="biases")
        tf.Variable(weights.initialized_value() * 2.0, name="w_twice")
        tf.global_variables_initializer()
        variables = graph_picture.write(os.path.join(directory, "variables.svg"), graph,
                                        title="TF1 variables guide: devices, initializers, initialized_value")
    return [guide, variables]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=IMAGES, help="where to write (default: tutorials/images/)")
    for path in make_images(parser.parse_args().dir):
        print("wrote", path, os.path.getsize(path), "bytes")
