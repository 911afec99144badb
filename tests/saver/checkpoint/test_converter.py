"""The name-based <-> object-based converter: a TF1 Saver checkpoint loaded into a real Keras 3 model with
assert_consumed, every name_map form, the report, errors; and back to a TF1 Saver."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import graph.compat.v1 as tf
from saver.checkpoint.converter import format_report, to_name_based, to_object_based
from saver.storage.object_graph import object_graph_from_checkpoint

KERAS_TEMPLATE = """
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
import keras
def model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="d1"), keras.layers.Dense(2, name="d2")])
if sys.argv[1] == "template":
    tf.train.Checkpoint(model=model()).write(sys.argv[2])
else:
    m = model()
    tf.train.Checkpoint(model=m).restore(sys.argv[2]).assert_consumed()
    print(json.dumps([w.numpy().tolist() for w in m.weights]))
"""


def _keras(tmp_path, *args):
    script = tmp_path / "keras_model.py"
    script.write_text(textwrap.dedent(KERAS_TEMPLATE))
    env = dict(os.environ, TF_USE_LEGACY_KERAS="0")
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


VALUES = {"dense/kernel": np.arange(12, dtype=np.float32).reshape(3, 4), "dense/bias": np.full(4, 0.5, np.float32),
          "dense_1/kernel": np.arange(8, dtype=np.float32).reshape(4, 2) / 8, "dense_1/bias": np.array([3, 4], np.float32)}


def _tf1_checkpoint(directory) -> str:
    """A TF1 name-based checkpoint of a two-layer net (and a global step), written by our tf.train.Saver."""
    with tf.Graph().as_default():
        for name, value in VALUES.items():
            tf.Variable(value, name=name)
        tf.train.get_or_create_global_step()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver().save(sess, os.path.join(str(directory), "model.ckpt"))


@pytest.fixture(scope="module")
def keras_template(tmp_path_factory):
    pytest.importorskip("keras")
    directory = tmp_path_factory.mktemp("keras")
    prefix = str(directory / "template")
    _keras(directory, "template", prefix)
    return prefix


KERNEL1 = "model/_functional/_operations/1/_kernel"
NAME_MAPS = {
    "shape": None,
    "dict": {"dense/kernel": KERNEL1, "dense/bias": "model/_functional/_operations/1/bias",
             "dense_1/kernel": "model/_functional/_operations/2/kernel",  # without the leading underscore
             "dense_1/bias": "model/_functional/_operations/2/bias/.ATTRIBUTES/VARIABLE_VALUE"},
    "regex": [(r"dense/(kernel|bias)", r"model/_functional/_operations/1/\1"),
              (r"dense_1/(kernel|bias)", r"model/_functional/_operations/2/\1")],
    "callable": lambda name: None if name == "global_step" else
    "model/_functional/_operations/%d/%s" % (2 if name.startswith("dense_1") else 1, name.split("/")[1]),
}


@pytest.mark.tf
@pytest.mark.slow  # one Keras subprocess per form
@pytest.mark.parametrize("form", sorted(NAME_MAPS))
def test_keras_model_loads_the_converted_checkpoint(tmp_path, keras_template, form):
    source = _tf1_checkpoint(tmp_path / "tf1")
    output = str(tmp_path / "tf2" / "converted")
    report = to_object_based(source, keras_template, output, NAME_MAPS[form])
    assert {m.source: m.key for m in report if m.source} == {
        "dense/kernel": KERNEL1 + "/.ATTRIBUTES/VARIABLE_VALUE",
        "dense/bias": "model/_functional/_operations/1/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "dense_1/kernel": "model/_functional/_operations/2/_kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "dense_1/bias": "model/_functional/_operations/2/bias/.ATTRIBUTES/VARIABLE_VALUE"}
    assert [m.how for m in report if m.key.startswith("save_counter")] == ["added"]
    weights = json.loads(_keras(tmp_path, "load", output))  # assert_consumed passed in Keras
    expected = [VALUES["dense/kernel"], VALUES["dense/bias"], VALUES["dense_1/kernel"], VALUES["dense_1/bias"]]
    for got, want in zip(weights, expected):
        np.testing.assert_array_equal(np.array(got, np.float32), want)


@pytest.mark.tf
def test_converted_back_restores_into_a_tf1_saver(tmp_path, keras_template, tf1):
    source = _tf1_checkpoint(tmp_path / "tf1")
    converted = str(tmp_path / "tf2" / "converted")
    to_object_based(source, keras_template, converted)
    back = str(tmp_path / "back" / "model")
    report = to_name_based(converted, back, {"sequential/d1/kernel": "dense/kernel", "sequential/d1/bias": "dense/bias",
                                             "sequential/d2/kernel": "dense_1/kernel",
                                             "sequential/d2/bias": "dense_1/bias"})
    assert sorted(m.key for m in report) == sorted(list(VALUES) + ["save_counter"])
    variables = {name: tf1.Variable(np.zeros_like(value), name=name) for name, value in VALUES.items()}
    with tf1.Session() as sess:
        tf1.train.Saver(list(variables.values())).restore(sess, back)  # real TF's Saver reads our file
        for name, variable in variables.items():
            np.testing.assert_array_equal(sess.run(variable), VALUES[name])


def test_report_and_errors(tmp_path):
    source = _tf1_checkpoint(tmp_path / "tf1")
    with tf.Graph().as_default():
        net = tf.Module(name="net")
        net.layers = [tf.Variable(np.zeros((3, 4), np.float32), name="k"), tf.Variable(np.zeros(7), name="other")]
        ckpt = tf.train.Checkpoint(net=net)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            template = ckpt.save(str(tmp_path / "template" / "ckpt"), session=sess)
    report = to_object_based(source, template, str(tmp_path / "out" / "a"))
    text = format_report(report)
    assert "net/layers/0/.ATTRIBUTES/VARIABLE_VALUE <- dense/kernel  [shape]  float32 [3, 4]" in text
    assert "net/layers/1/.ATTRIBUTES/VARIABLE_VALUE <- (template)  float64 [7]" in text
    assert "save_counter/.ATTRIBUTES/VARIABLE_VALUE <- (template)" in text  # the template had one: none added
    graph = object_graph_from_checkpoint(str(tmp_path / "out" / "a"))
    assert graph.to_bytes() == object_graph_from_checkpoint(template).to_bytes()
    with pytest.raises(tf.errors.InvalidArgumentError, match="'dense/bias' .*cannot fill 'net/layers/0"):
        to_object_based(source, template, str(tmp_path / "out" / "b"), {"dense/bias": "net/layers/0"})
    with pytest.raises(tf.errors.NotFoundError, match="'dense/bias' to 'nowhere'"):
        to_object_based(source, template, str(tmp_path / "out" / "c"), {"dense/bias": "nowhere"})
    with pytest.raises(tf.errors.InvalidArgumentError, match="would both be saved as 'x'"):
        to_name_based(template, str(tmp_path / "out" / "d"), lambda name: "x")
    with pytest.raises(tf.errors.NotFoundError, match="not an object-based"):
        to_name_based(source, str(tmp_path / "out" / "e"))
