"""graph/ops/vocab_remapping_ops.py: GenerateVocabRemapping's graph, values and errors against TensorFlow."""

import os

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from graph.ops.vocab_remapping_ops import generate_vocab_remapping
from tests.graph.graph_oracle import build_error_messages, describe_ours, describe_tf, import_and_run, raw_graph

VOCABS = {
    "old": b"apple\nbanana\ncherry\ndate\nelder\n",
    "new": b"cherry\nfig\napple\ngrape\nelder\n",
    "crlf": b"fig\r\napple\r\nbanana",  # '\r' dropped, a last line without '\n' counts
    "dup": b"apple\nbanana\napple\n",
    "blank": b"apple\n\nbanana\n",
    "empty": b"",
}

# (new file, old file, new_vocab_offset, num_new_vocab, old_vocab_size)
CASES = {
    "whole": ("new", "old", 0, 5, -1),
    "offset": ("new", "old", 2, 3, -1),
    "old size truncates": ("new", "old", 0, 5, 3),
    "old size exact": ("new", "old", 0, 5, 5),
    "crlf": ("crlf", "old", 0, 3, -1),
    "none asked": ("new", "old", 5, 0, -1),
    "new past its end": ("new", "old", 3, 3, -1),
    "old size too big": ("new", "old", 0, 2, 9),
    "old size zero": ("new", "old", 0, 2, 0),
    "duplicate old word": ("new", "dup", 0, 5, -1),
    "duplicate past old size": ("new", "dup", 0, 5, 2),
    "blank new line": ("blank", "old", 0, 1, -1),
    "blank old line": ("new", "blank", 0, 5, -1),
    "empty old file": ("new", "empty", 0, 5, -1),
    "missing new file": ("nope", "old", 0, 1, -1),
    "empty old filename": ("new", "", 0, 1, -1),
}


@pytest.fixture
def vocab_dir(tmp_path):
    for name, data in VOCABS.items():
        (tmp_path / name).write_bytes(data)
    return str(tmp_path)


def _path(directory: str, name: str) -> str:
    return os.path.join(directory, name) if name else ""


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_errors_match_tensorflow(tf1, vocab_dir, case):
    new, old, offset, count, old_size = CASES[case]

    def make(raw, tf):
        return list(raw.GenerateVocabRemapping(new_vocab_file=_path(vocab_dir, new),
                                               old_vocab_file=_path(vocab_dir, old), new_vocab_offset=offset,
                                               num_new_vocab=count, old_vocab_size=old_size))

    data, names = raw_graph(tf1, make)
    theirs = import_and_run(tf1, data, names, None, whole_message=True)
    ours = import_and_run(ours_tf, data, names, None, whole_message=True)
    assert ours[0] == theirs[0]
    if isinstance(theirs[1], tuple):  # (error class, message)
        assert ours[1][0] == theirs[1][0]
        assert ours[1][1].split("\n")[0] in theirs[1][1].split("\n")  # TF's text adds graph context lines
    else:
        for mine, real in zip(ours[1], theirs[1]):
            np.testing.assert_array_equal(mine, real)
            assert np.asarray(mine).dtype == np.asarray(real).dtype


def test_remapping_values(vocab_dir):
    with graph_lib.Graph().as_default():
        remapping, present = generate_vocab_remapping(_path(vocab_dir, "new"), _path(vocab_dir, "old"), 1, 4,
                                                      old_vocab_size=4)
        values = ours_tf.Session().run([remapping, present])
    np.testing.assert_array_equal(values[0], [-1, 0, -1, -1])  # fig, apple, grape, elder (past old size 4)
    assert values[1] == 1 and values[1].dtype == np.int32


@pytest.mark.tf
def test_builder_graph_matches_tensorflow(tf1, vocab_dir):
    from tensorflow.python.ops import gen_checkpoint_ops

    def build(make):
        placeholder = ours_tf.placeholder if make is generate_vocab_remapping else tf1.placeholder
        name = placeholder("string", [], name="new_name")
        first = make(new_vocab_file=name, old_vocab_file=_path(vocab_dir, "old"), new_vocab_offset=1,
                     num_new_vocab=2)
        second = make(new_vocab_file=_path(vocab_dir, "new"), old_vocab_file=_path(vocab_dir, "old"),
                      new_vocab_offset=0, num_new_vocab=5, old_vocab_size=3, name="named")
        return first, second

    ours = graph_lib.Graph()
    with ours.as_default():
        result = build(generate_vocab_remapping)
    build(gen_checkpoint_ops.generate_vocab_remapping)
    assert describe_ours(ours) == describe_tf(tf1.get_default_graph())
    assert result[0].remapping.shape.as_list() == [2] and result[1].num_present.shape.as_list() == []


@pytest.mark.tf
@pytest.mark.parametrize("case", ["vector filename", "negative offset", "negative count", "old size below -1"])
def test_build_errors_match_tensorflow(tf1, case):
    from tensorflow.python.ops import gen_checkpoint_ops
    args = {"vector filename": (["a", "b"], "c", 0, 1, -1), "negative offset": ("a", "c", -1, 1, -1),
            "negative count": ("a", "c", 0, -2, -1), "old size below -1": ("a", "c", 0, 1, -2)}[case]
    mine, theirs = build_error_messages(tf1, generate_vocab_remapping, gen_checkpoint_ops.generate_vocab_remapping, args)
    assert mine == theirs
