"""saver/graph_ops/remap_ops.py: LoadAndRemapMatrix's graph, values and errors against TensorFlow.

TF builds each case with ``tf.raw_ops``; its GraphDef runs in both frameworks on one checkpoint written by this
package (``m`` whole, ``p`` stored in three row slices, ``d`` float64, ``v`` a vector).
"""

import os

import numpy as np
import pytest

import graph.compat.v1 as ours_tf
from graph.core import graph as graph_lib
from saver.format.bundle import Slice, write_checkpoint
from saver.graph_ops.remap_ops import load_and_remap_matrix
from tests.graph.graph_oracle import build_error_messages, describe_ours, describe_tf, import_and_run, raw_graph

M = np.arange(12, dtype=np.float32).reshape(6, 2)
P = np.arange(21, dtype=np.float32).reshape(7, 3) * 10


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    parts = [Slice((7, 3), "0,3:-", P[:3]), Slice((7, 3), "3,2:-", P[3:5]), Slice((7, 3), "5,2:-", P[5:])]
    return write_checkpoint(str(tmp_path_factory.mktemp("remap") / "model"), {
        "m": M, "p": parts, "d": M.astype(np.float64), "v": np.arange(3, dtype=np.float32)})


BASE = dict(old_tensor_name="m", row_remapping=[0, 1], col_remapping=[], initializing_values=[], num_rows=2,
            num_cols=2)
CASES = {
    "identity": {},
    "reordered rows": dict(row_remapping=[5, 0, 3], num_rows=3),
    "missing rows": dict(row_remapping=[4, -1, 1, -1], num_rows=4, initializing_values=[7, 8, 9, 10]),
    "rows and columns": dict(row_remapping=[2, -1, 0], col_remapping=[1, -1, 0], num_rows=3, num_cols=3,
                             initializing_values=[1, 2, 3, 4, 5, 6, 7]),
    "chunked reads": dict(row_remapping=[5, 1, -1, 3], num_rows=4, initializing_values=[1, 2], max_rows_in_memory=2),
    "partitioned": dict(old_tensor_name="p", row_remapping=[6, -1, 2, 4, 3], col_remapping=[2, 0], num_rows=5,
                        initializing_values=[-1, -2]),
    "partitioned chunks": dict(old_tensor_name="p", row_remapping=[0, 6, 5], num_rows=3, num_cols=3,
                               max_rows_in_memory=3),
    "no rows present": dict(row_remapping=[-1, -1], initializing_values=[1, 2, 3, 4]),
    "no rows": dict(row_remapping=[], num_rows=0),
    "row past the end": dict(row_remapping=[0, 10]),
    "chunk past the end": dict(row_remapping=[0, 7], max_rows_in_memory=3),
    "too many values": dict(row_remapping=[3, -1], initializing_values=[7, 8, 9]),
    "too few values": dict(row_remapping=[3, -1], initializing_values=[7]),
    "old row twice": dict(row_remapping=[3, 3]),
    "old column twice": dict(col_remapping=[1, 1]),
    "row remapping matrix": dict(row_remapping=[[3, 2]]),
    "row remapping size": dict(num_rows=3),
    "col remapping size": dict(col_remapping=[1]),
    "num_cols differs": dict(num_cols=3),
    "float64 tensor": dict(old_tensor_name="d"),
    "vector tensor": dict(old_tensor_name="v"),
    "missing tensor": dict(old_tensor_name="zz"),
    "missing checkpoint": dict(ckpt_path="nope"),
    "two paths": dict(ckpt_path=["a", "b"]),
}


def _args(prefix: str, case: str) -> dict:
    args = dict(BASE, ckpt_path=prefix)
    args.update(CASES[case])
    if args["ckpt_path"] == "nope":
        args["ckpt_path"] = os.path.join(os.path.dirname(prefix), "nope")
    return args


@pytest.mark.tf
@pytest.mark.parametrize("case", sorted(CASES))
def test_values_and_errors_match_tensorflow(tf1, prefix, case):
    args = _args(prefix, case)

    def make(raw, tf):
        return [raw.LoadAndRemapMatrix(**args)]

    data, names = raw_graph(tf1, make)
    theirs = import_and_run(tf1, data, names, None, whole_message=True)
    ours = import_and_run(ours_tf, data, names, None, whole_message=True)
    assert ours[0] == theirs[0]
    if isinstance(theirs[1], tuple):  # (error class, message)
        assert ours[1][0] == theirs[1][0]
        first_line = ours[1][1].split("\n")[0]
        if case == "missing tensor":  # ours names the checkpoint and the closest keys after TF's words
            first_line = first_line[:len("Key zz not found in checkpoint")]
        assert any(line.startswith(first_line) for line in theirs[1][1].split("\n")), (ours[1], theirs[1])
    else:
        np.testing.assert_array_equal(ours[1][0], theirs[1][0])
        assert ours[1][0].dtype == theirs[1][0].dtype == np.float32


def test_rows_and_columns_move(prefix):
    with graph_lib.Graph().as_default():
        matrix = load_and_remap_matrix(prefix, "p", [6, -1], [2, -1, 0], [1, 2, 3, 4], num_rows=2, num_cols=3)
        value = ours_tf.Session().run(matrix)
    np.testing.assert_array_equal(value, [[P[6, 2], 1, P[6, 0]], [2, 3, 4]])


@pytest.mark.tf
def test_builder_graph_matches_tensorflow(tf1, prefix):
    from tensorflow.python.ops import gen_checkpoint_ops

    def build(tf, make):
        rows = tf.placeholder(tf.int64, [None], name="rows")
        make(ckpt_path=prefix, old_tensor_name="m", row_remapping=rows, col_remapping=[], initializing_values=[0.5],
             num_rows=3, num_cols=2)
        make(prefix, "p", [1, 2], [0, -1, 2], [1.0, 2.0], 2, 3, max_rows_in_memory=5, name="named")

    ours = graph_lib.Graph()
    with ours.as_default():
        build(ours_tf, load_and_remap_matrix)
    build(tf1, gen_checkpoint_ops.load_and_remap_matrix)
    assert describe_ours(ours) == describe_tf(tf1.get_default_graph())


@pytest.mark.tf
@pytest.mark.parametrize("case", ["name vector", "no columns", "negative rows"])
def test_build_errors_match_tensorflow(tf1, case):
    from tensorflow.python.ops import gen_checkpoint_ops
    args = {"name vector": ("c", ["m"], [0], [], [], 1, 2), "no columns": ("c", "m", [0], [], [], 1, 0),
            "negative rows": ("c", "m", [0], [], [], -1, 2)}[case]
    mine, theirs = build_error_messages(tf1, load_and_remap_matrix, gen_checkpoint_ops.load_and_remap_matrix, args)
    assert mine == theirs


@pytest.mark.tf
def test_stateful_flag_and_gradient_declaration_are_tensorflows(tf_module):
    # graph's stateful-flag test walks graph's kernels only; this kernel is saver's
    from tensorflow.python.framework import op_def_registry, ops as tf_ops

    from graph.base import kernels
    from graph.gradients import gradients_impl, registry
    assert gradients_impl.gradients is not None  # loads every gradient module into the registry
    assert kernels.lookup("LoadAndRemapMatrix").stateful is op_def_registry.get("LoadAndRemapMatrix").is_stateful
    assert registry.is_registered("LoadAndRemapMatrix") and registry.lookup("LoadAndRemapMatrix") is None
    assert tf_ops.gradient_registry.lookup("LoadAndRemapMatrix") is None  # TF's NotDifferentiable
