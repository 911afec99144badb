"""The command line (saver/cli/, saver/__main__.py): output, --json, exit codes, one-line errors."""

import io
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from saver.format.bundle import Slice, write_checkpoint
from saver.cli import EXIT_CODES, main
from saver.storage.reader import load_checkpoint

from tests import TEST_DATA

DATA = TEST_DATA
GUIDE = os.path.join(DATA, "tf2_guide")
V1_ADAM = os.path.join(DATA, "v1_adam")
ROOT = os.path.dirname(os.path.dirname(DATA))
KERNEL = "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"


def run(*argv):
    """(exit code, stdout, stderr) of one command run in this process."""
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def one_line_error(err, *words):
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err


@pytest.fixture
def partitioned(tmp_path):
    prefix = str(tmp_path / "part.ckpt")
    write_checkpoint(prefix, {"emb": [Slice((4, 2), "0,2:-", np.ones((2, 2), np.float32)),
                                      Slice((4, 2), "2,2:-", np.zeros((2, 2), np.float32))],
                              "step": np.array(3, np.int64)})
    return prefix


def test_inspect_summary(partitioned):
    code, out, _ = run("inspect", GUIDE)
    assert code == 0
    assert "ckpt-5" in out and "V2, 12 tensors" in out and "found via model_checkpoint_path" in out
    line = next(l for l in out.splitlines() if l.startswith(KERNEL))
    assert line.split()[1:4] == ["float32", "[1,5]", "20"]
    code, out, _ = run("inspect", partitioned)
    line = next(l for l in out.splitlines() if l.startswith("emb"))
    assert "2: 0,2:- 2,2:-" in line and "32 B" in line


def test_inspect_json(partitioned):
    code, out, _ = run("inspect", partitioned, "--json")
    document = json.loads(out)
    assert code == 0 and document["format"] == "V2"
    emb = next(t for t in document["tensors"] if t["key"] == "emb")
    assert emb == {"key": "emb", "dtype": "float32", "shape": [4, 2], "size": 32, "shard": 0,
                   "slices": ["0,2:-", "2,2:-"]}
    code, out, _ = run("inspect", GUIDE, "--json", "--tensor_name", "_CHECKPOINTABLE_OBJECT_GRAPH",
                       "--tensor_name", "step/.ATTRIBUTES/VARIABLE_VALUE")
    values = json.loads(out)["values"]
    assert "base64" in values["_CHECKPOINTABLE_OBJECT_GRAPH"]  # not UTF-8: base64
    assert values["step/.ATTRIBUTES/VARIABLE_VALUE"] == 50


def test_inspect_values_like_inspect_checkpoint():
    code, out, _ = run("--help")  # argparse's help goes to stdout and exits 0
    assert code == 0
    code, out, _ = run("inspect", "--file_name", GUIDE, "--tensor_name", KERNEL, "--printoptions", "precision=2")
    assert code == 0 and out.startswith(f"tensor_name:  {KERNEL}\n[[")
    assert len(out.splitlines()[1].split()[1]) <= 6  # two decimals
    code, out, _ = run("inspect", GUIDE, "--all_tensors")
    assert out.count("tensor_name:") == 12
    code, out, _ = run("inspect", GUIDE, "--all_tensor_names")
    assert out.splitlines()[0] == "_CHECKPOINTABLE_OBJECT_GRAPH" and len(out.splitlines()) == 12


def test_errors_are_one_line_with_meaningful_codes(tmp_path):
    code, _, err = run("inspect", tmp_path / "missing")
    assert code == 3
    one_line_error(err, "missing")
    code, _, err = run("inspect", GUIDE, "--tensor_name", "bias")
    assert code == 3
    one_line_error(err, "'bias'", "net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE")
    damaged = tmp_path / "bad"
    (tmp_path / "bad.index").write_bytes(b"\x00" * 100)
    (tmp_path / "bad.data-00000-of-00001").write_bytes(b"")
    code, _, err = run("inspect", damaged)
    assert code == 4
    one_line_error(err, "bad.index")
    code, _, err = run("inspect", GUIDE, "--printoptions", "nonsense")
    assert code == 2
    code, _, err = run("tree", tmp_path / "missing")
    assert code == 3
    assert code in EXIT_CODES
    code, _, err = run("no-such-command")
    assert code == 2


def test_tree():
    code, out, _ = run("tree", V1_ADAM)
    assert code == 0
    assert "    .OPTIMIZER_SLOT m of /model/v [8]  {VARIABLE_VALUE=w/Adam float32[2]}" in out
    code, out, _ = run("tree", GUIDE, "--json")
    nodes = json.loads(out)["nodes"]
    assert nodes[1]["attributes"][0]["dtype"] is None  # ITERATOR's tensor is ITERATOR_STATE
    assert len(nodes) == 20 and nodes[14]["path"] == "net/l1/_kernel"


def test_tree_of_a_name_based_checkpoint(partitioned):
    code, _, err = run("tree", partitioned)
    assert code == 3
    one_line_error(err, "_CHECKPOINTABLE_OBJECT_GRAPH")


def test_diff(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    write_checkpoint(a, {"same": [1, 2], "changed": np.array([1.0, 2.0], np.float32), "gone": [0],
                         "reshaped": np.zeros(4, np.float32)})
    write_checkpoint(b, {"same": [1, 2], "changed": np.array([1.0, 2.5], np.float32), "new": [0],
                         "reshaped": np.zeros((2, 2), np.float32)})
    code, out, _ = run("diff", a, b)
    assert code == 1
    assert "- gone" in out and "+ new" in out and "! reshaped  float32[4] -> float32[2,2]" in out
    assert "~ changed  1 of 2 elements differ, max |a-b| = 0.5" in out
    code, out, _ = run("diff", a, b, "--json", "--atol", "1")
    document = json.loads(out)
    assert code == 1 and document["changed_value"] == [] and document["only_in_a"] == ["gone"]
    assert run("diff", a, a)[0] == 0
    assert run("diff", a, b, "--keys-only")[0] == 1


def test_rename_dry_run_then_write(tmp_path):
    code, out, _ = run("rename", GUIDE, "--regex", "^net/l1/", "dense/", "--dry-run")
    assert code == 0 and f"{KERNEL} -> dense/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in out and "dry run" in out
    assert not list(tmp_path.iterdir())
    out_prefix = tmp_path / "renamed"
    code, out, _ = run("rename", GUIDE, "--regex", "^net/l1/", "dense/", "--map",
                       "step/.ATTRIBUTES/VARIABLE_VALUE=global_step", "-o", out_prefix)
    assert code == 0, out
    with load_checkpoint(str(out_prefix)) as reader:
        keys = reader.get_variable_to_dtype_map()
        assert "dense/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys and "global_step" in keys
        assert "_CHECKPOINTABLE_OBJECT_GRAPH" in keys  # not renamed by the regex
    code, out, _ = run("tree", out_prefix, "--json")
    attributes = {a["full_name"]: a for n in json.loads(out)["nodes"] for a in n["attributes"]}
    assert attributes["net/kernel"]["key"] == "dense/_kernel/.ATTRIBUTES/VARIABLE_VALUE"  # object graph follows
    assert attributes["net/kernel"]["dtype"] == "float32"
    assert attributes["Variable"]["key"] == "global_step"
    code, _, err = run("rename", GUIDE, "--add-prefix", "x/", "-o", out_prefix)
    assert code == 6
    one_line_error(err, "already exists", "--force")
    assert run("rename", GUIDE, "--add-prefix", "x/", "-o", out_prefix, "--force")[0] == 0


def test_rename_errors(tmp_path):
    code, _, err = run("rename", GUIDE, "--regex", "VALUE$", "", "--regex", ".*", "same", "-o", tmp_path / "x")
    assert code == 6
    one_line_error(err, "would both be named")
    assert run("rename", GUIDE, "--map", "nokey=other", "-o", tmp_path / "x")[0] == 3
    assert run("rename", GUIDE, "--regex", "(", "x", "-o", tmp_path / "x")[0] == 2
    assert run("rename", GUIDE, "-o", tmp_path / "x")[0] == 2  # no rule
    assert run("rename", GUIDE, "--add-prefix", "a/")[0] == 2  # neither -o nor --in-place
    (tmp_path / "map.json").write_text('["not", "an", "object"]')
    assert run("rename", GUIDE, "--map-file", tmp_path / "map.json", "-o", tmp_path / "x")[0] == 2
    assert not (tmp_path / "x.index").exists()


def test_rename_in_place_keeps_partitions(partitioned):
    code, out, _ = run("rename", partitioned, "--map", "emb=embedding", "--in-place")
    assert code == 0
    with load_checkpoint(partitioned) as reader:
        assert sorted(reader.get_variable_to_dtype_map()) == ["embedding", "step"]
        assert reader.get_tensor("embedding").tolist() == [[1, 1], [1, 1], [0, 0], [0, 0]]
    code, out, _ = run("inspect", partitioned, "--json")
    (embedding,) = [t for t in json.loads(out)["tensors"] if t["key"] == "embedding"]
    assert embedding["slices"] == ["0,2:-", "2,2:-"]
    # A one-file original becomes two data files (the second empty), so one index rename commits the edit.
    assert sorted(os.listdir(os.path.dirname(partitioned))) == [
        "part.ckpt.data-00000-of-00002", "part.ckpt.data-00001-of-00002", "part.ckpt.index"]


def test_drop_and_keep(tmp_path):
    code, out, _ = run("drop", GUIDE, "optimizer/*", "iterator/*", "-o", tmp_path / "slim")
    assert code == 0 and "wrote" in out
    code, out, _ = run("tree", tmp_path / "slim", "--json")
    nodes = json.loads(out)["nodes"]
    assert nodes[16]["attributes"] == [] and nodes[1]["attributes"] == []  # dropped attributes leave the graph
    assert nodes[14]["attributes"][0]["dtype"] == "float32"
    code, out, _ = run("keep", GUIDE, "^net/", "--regex", "-o", tmp_path / "net", "--json")
    assert code == 0 and json.loads(out)["tensors_written"] == 3  # two variables and the object graph
    code, _, err = run("keep", GUIDE, "nothing*", "-o", tmp_path / "none")
    assert code == 3
    one_line_error(err, "'nothing*'")
    assert run("drop", GUIDE, "net/*", "--dry-run")[1].count("drop ") == 2


@pytest.mark.parametrize("fmt", ["npz", "safetensors"])
def test_export_import(tmp_path, partitioned, fmt):
    path = tmp_path / f"weights.{fmt}"
    code, out, _ = run("export", partitioned, path)
    assert code == 0 and f"{fmt}, 2 tensors" in out
    assert run("export", partitioned, path)[0] == 6
    code, out, _ = run("import", path, "-o", tmp_path / "back", "--json")
    assert code == 0 and json.loads(out)["tensors"] == 2
    assert run("diff", partitioned, tmp_path / "back")[0] == 0
    code, _, err = run("export", partitioned, tmp_path / "weights.h5")
    assert code == 2
    one_line_error(err, "weights.h5")
    assert run("import", tmp_path / "absent.npz", "-o", tmp_path / "y")[0] == 3


def test_picture(tmp_path, monkeypatch):
    code, out, _ = run("picture", GUIDE, "-o", tmp_path / "guide.svg")
    assert code == 0 and (tmp_path / "guide.svg").read_text().startswith("<svg")
    code, out, _ = run("picture", V1_ADAM)
    assert code == 0 and out.startswith("digraph G {")
    code, out, _ = run("picture", V1_ADAM, "--format", "svg")
    assert out.startswith("<svg")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code, _, err = run("picture", GUIDE, "-o", tmp_path / "guide.png")
    assert code == 5
    one_line_error(err, "Graphviz")


def test_meta_and_picture_of_a_meta_graph(tmp_path):
    import graph.compat.v1 as tf
    from graph.core.graph import Graph
    with Graph().as_default():
        with tf.device("/cpu:0"):
            w = tf.Variable(tf.zeros([2, 3]), name="w")
        tf.Variable(w.initialized_value() + 1.0, name="w_plus_one")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))
    code, out, _ = run("meta", prefix + ".meta")
    assert code == 0 and "VariableV2" in out and "saver_def" in out
    code, out, _ = run("meta", prefix, "--json")
    document = json.loads(out)
    assert document["ops_by_type"]["VariableV2"] == 2
    assert [v["name"] for v in document["variables"]] == ["w:0", "w_plus_one:0"]
    assert document["saver_def"]["version"] == 2
    code, out, _ = run("picture", prefix, "-o", tmp_path / "graph.svg")  # a TF1 checkpoint: its .meta
    assert code == 0 and "w_plus_one/Assign" in (tmp_path / "graph.svg").read_text()
    code, out, _ = run("picture", prefix + ".meta", "--detail", "ops")
    assert code == 0 and "initialized_value" in out
    assert run("meta", tmp_path / "none.meta")[0] == 3


@pytest.mark.tf
def test_tensorflow_reads_edited_checkpoints(tmp_path, tf1):
    """TF's own reader and TrackableObjectGraph parser accept what rename and import wrote."""
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    assert run("rename", GUIDE, "--strip-prefix", "net/l1/", "-o", tmp_path / "renamed")[0] == 0
    reader = tf1.train.load_checkpoint(str(tmp_path / "renamed"))
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    keys = {a.full_name: a.checkpoint_key for n in graph.nodes for a in n.attributes}
    assert keys["net/kernel"] == "_kernel/.ATTRIBUTES/VARIABLE_VALUE"
    assert reader.get_tensor(keys["net/kernel"]).shape == (1, 5)
    assert run("export", GUIDE, tmp_path / "g.safetensors")[0] == 0
    assert run("import", tmp_path / "g.safetensors", "-o", tmp_path / "imported")[0] == 0
    imported = tf1.train.load_checkpoint(str(tmp_path / "imported"))
    assert imported.get_variable_to_shape_map() == tf1.train.load_checkpoint(GUIDE).get_variable_to_shape_map()


def test_module_and_console_entry_point():
    result = subprocess.run([sys.executable, "-m", "saver", "inspect", GUIDE, "--all_tensor_names"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0 and KERNEL in result.stdout
    result = subprocess.run([sys.executable, "-m", "saver", "inspect", "/nonexistent/x"], capture_output=True,
                            text=True, cwd=ROOT, timeout=60, check=False, env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 3 and result.stderr.startswith("tf1-saver inspect: error:")
    from saver.__main__ import main as entry
    assert entry(["inspect", GUIDE, "--all_tensor_names"]) == 0


def test_progress_bars_are_optional():
    from saver.cli.output import progress
    items = [1, 2]
    assert progress(items, 2, "x", enabled=False) is items
    tqdm = pytest.importorskip("tqdm")
    bar = progress(items, 2, "x", enabled=True)
    assert isinstance(bar, tqdm.tqdm) and list(bar) == items
    bar.close()


def test_picture_of_a_meta_graph_says_why_it_falls_back(tmp_path, monkeypatch, capsys):
    import graph.compat.v1 as tf
    from graph.core.graph import Graph
    from saver import saver as saver_module  # the picture command imports the graph through import_meta_graph
    with Graph().as_default():
        tf.Variable(tf.zeros([2]), name="w")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"))

    def broken(*args, **kwargs):
        raise KeyError("collection 'cond_context'\nspans lines")
    monkeypatch.setattr(saver_module, "import_meta_graph", broken)
    code, out, _ = run("picture", prefix + ".meta", "--detail", "ops")
    assert code == 0 and "w/Assign" in out
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning" in err and "model.ckpt.meta" in err, err
    assert "KeyError" in err and "cond_context" in err and "drawing the graph's ops alone" in err


def test_error_messages_are_always_one_line():
    from saver.cli import _message
    from saver.cli.output import MAX_MESSAGE, one_line
    from graph.errors import DataLossError
    long = DataLossError(None, None, "first line\n" + "x" * 3000 + "\nlast line")
    text = _message(long)
    assert "\n" not in text and len(text) <= MAX_MESSAGE and text.endswith("...")
    assert text.startswith("DataLossError: first line x")
    assert _message(DataLossError(None, None, "a\nb\n  c")) == "DataLossError: a b c"
    assert one_line("a\r\n\tb") == "a b"
