"""``to-object`` / ``to-name``: the converter on the command line (maps from JSON or regex rules, report,
JSON output, refusals and usage errors)."""

import io
import json

import numpy as np

import graph.compat.v1 as tf
from saver.cli import main
from saver.cli.output import EXIT_NOT_FOUND, EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from saver.storage.object_graph import object_graph_from_checkpoint
from saver.storage.reader import load_checkpoint


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _checkpoints(tmp_path):
    """A TF1 checkpoint {dense/kernel, dense/bias} and a TF2 template net/{kernel, bias} written by us."""
    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="dense/kernel")
        tf.Variable(np.ones(3, np.float32), name="dense/bias")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            source = tf.train.Saver().save(sess, str(tmp_path / "tf1" / "model"))
    with tf.Graph().as_default():
        net = tf.Module(name="net")
        net.kernel, net.bias = tf.Variable(tf.zeros([2, 3])), tf.Variable(tf.zeros([3]))
        ckpt = tf.train.Checkpoint(net=net)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            template = ckpt.save(str(tmp_path / "tf2" / "ckpt"), session=sess)
    return source, template


def test_to_object_with_regex_and_json_map(tmp_path):
    source, template = _checkpoints(tmp_path)
    code, out, err = run("to-object", source, "--template", tmp_path / "tf2", "-o", tmp_path / "out" / "a",
                         "--regex", r"dense/(\w+)=net/\1")
    assert (code, err) == (EXIT_OK, "")
    assert "net/kernel/.ATTRIBUTES/VARIABLE_VALUE <- dense/kernel  [regex]  float32 [2, 3]" in out
    reader = load_checkpoint(str(tmp_path / "out" / "a"))
    np.testing.assert_array_equal(reader.get_tensor("net/kernel/.ATTRIBUTES/VARIABLE_VALUE"),
                                  np.arange(6).reshape(2, 3))
    assert object_graph_from_checkpoint(str(tmp_path / "out" / "a")).to_bytes() == \
        object_graph_from_checkpoint(template).to_bytes()
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"dense/bias": "net/bias"}))
    code, out, _ = run("to-object", source, "--template", template, "-o", tmp_path / "out" / "b", "--map", mapping,
                       "--json")
    document = json.loads(out)
    assert code == EXIT_OK
    assert {t["key"]: (t["source"], t["how"]) for t in document["tensors"]} == {
        "net/bias/.ATTRIBUTES/VARIABLE_VALUE": ("dense/bias", "map"),
        "net/kernel/.ATTRIBUTES/VARIABLE_VALUE": (None, "template"),
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE": (None, "template")}


def test_to_name_and_refusals(tmp_path):
    source, template = _checkpoints(tmp_path)
    code, out, _ = run("to-name", template, "-o", str(tmp_path / "back") + "/", "--regex", r"Variable(_1)?=renamed\1")
    assert code == EXIT_OK and "renamed_1 <- net/bias/.ATTRIBUTES/VARIABLE_VALUE  [regex]" in out
    assert sorted(load_checkpoint(str(tmp_path / "back")).get_variable_to_shape_map()) == \
        ["renamed", "renamed_1", "save_counter"]
    code, _, err = run("to-name", template, "-o", tmp_path / "back" / "ckpt")
    assert code == EXIT_REFUSED and "already exists" in err
    code, _, err = run("to-object", source, "--template", source, "-o", tmp_path / "x")
    assert code == EXIT_NOT_FOUND and "not an object-based" in err
    code, _, err = run("to-object", source, "--template", template, "-o", tmp_path / "y", "--regex", "nope")
    assert code == EXIT_USAGE and "PATTERN=REPLACEMENT" in err
    code, _, err = run("to-object", source, "--template", template, "-o", tmp_path / "z", "--map", tmp_path / "no.json")
    assert code == EXIT_NOT_FOUND and "no.json: no such file" in err
