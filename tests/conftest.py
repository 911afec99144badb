"""Shared fixtures: the real-TensorFlow oracle (imported lazily, only by tests that ask for it)."""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
# TF 2.21 offers tf.layers and tf.nn.rnn_cell only through the legacy Keras package (tf-keras).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


def pytest_configure(config):
    config.addinivalue_line("markers", "tf: compares with real TensorFlow (the oracle)")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")


@pytest.fixture(scope="session")
def tf_module():
    """tensorflow.compat.v1 with v2 behaviour disabled, imported once per test session."""
    if os.environ.get("CI"):
        import tensorflow as tf  # CI installs the oracle: a missing TensorFlow must fail, not skip
    else:
        tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    v1.disable_v2_behavior()
    v1.logging.set_verbosity(v1.logging.ERROR)
    return v1


@pytest.fixture
def tf1(tf_module):
    """tensorflow.compat.v1 inside a fresh default graph."""
    with tf_module.Graph().as_default():
        yield tf_module
