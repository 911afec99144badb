"""Tests for saver/reader.py: path resolution, TF's CheckpointReader API over V2 and V1."""

import os

import numpy as np
import pytest

from graph.base import dtypes
from graph.errors import InvalidArgumentError, NotFoundError
from saver.format.bundle import Slice, write_checkpoint
from saver.format.coding import TensorSlice
from saver.storage.reader import (CheckpointReader, NewCheckpointReader, list_variables, load_checkpoint, load_variable,
                          resolve_checkpoint_path)
from saver.format.v1 import write_v1_checkpoint

FULL = np.arange(14.0, dtype=np.float32).reshape(7, 2)
VALUES = {"w": np.ones((2, 3), np.float32), "step": np.int64(5), "name": np.array(b"x", object),
          "emb": [Slice((7, 2), "0,3:-", FULL[:3]), Slice((7, 2), "3,4:-", FULL[3:])]}


@pytest.fixture
def v2(tmp_path):
    return write_checkpoint(str(tmp_path / "model.ckpt-7"), VALUES)


def test_shape_and_dtype_maps_hide_slice_keys(v2):
    reader = load_checkpoint(v2)
    assert reader.format == "V2" and reader.prefix == v2
    assert reader.get_variable_to_shape_map() == {"emb": [7, 2], "name": [], "step": [], "w": [2, 3]}
    assert reader.get_variable_to_dtype_map() == {"emb": dtypes.float32, "name": dtypes.string,
                                                  "step": dtypes.int64, "w": dtypes.float32}
    assert reader.get_tensor("name") == b"x"
    np.testing.assert_array_equal(reader.get_tensor("emb"), FULL)
    assert reader.has_tensor("w") and not reader.has_tensor("v")
    debug = reader.debug_string()
    assert b"w (DT_FLOAT) [2,3]\n" in debug and b"step (DT_INT64) []\n" in debug
    assert b"\nemb (" not in debug and debug.count(b"\x00emb") == 2  # as TF's BundleReader::DebugString
    with pytest.raises(NotFoundError, match="Closest keys present: w"):
        reader.get_tensor("w:0")


def test_path_resolution(v2, tmp_path):
    for path in (v2, v2 + ".index", v2 + ".data-00000-of-00001", v2 + ".meta"):
        assert load_checkpoint(path).prefix == v2
    assert "index file" in load_checkpoint(v2 + ".index").resolved_from
    with open(tmp_path / "checkpoint", "w") as file:
        file.write('model_checkpoint_path: "model.ckpt-7"\nall_model_checkpoint_paths: "model.ckpt-7"\n')
    reader = load_checkpoint(str(tmp_path))
    assert reader.prefix == v2 and "checkpoint" in reader.resolved_from
    assert resolve_checkpoint_path(str(tmp_path))[0] == v2
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        load_checkpoint(str(empty))
    with pytest.raises(NotFoundError, match="Failed to find any matching files"):
        NewCheckpointReader(str(tmp_path / "nothing"))


def test_escaped_and_absolute_state_paths(tmp_path):
    odd = tmp_path / 'a "q"'
    prefix = write_checkpoint(str(odd / "m-1"), {"v": np.ones(1)})
    with open(odd / "checkpoint", "w") as file:
        escaped = prefix.replace("\\", "\\\\").replace('"', '\\"')
        file.write(f'model_checkpoint_path: "{escaped}"\n')
    assert load_checkpoint(str(odd)).prefix == prefix


def test_list_and_load_variable(v2):
    assert list_variables(v2) == [("emb", [7, 2]), ("name", []), ("step", []), ("w", [2, 3])]
    assert load_variable(v2, "step:0") == 5
    np.testing.assert_array_equal(load_variable(v2, "emb"), FULL)


def test_v1_transparently(tmp_path):
    path = write_v1_checkpoint(str(tmp_path / "old"), VALUES)
    reader = CheckpointReader(path)
    assert reader.format == "V1"
    assert reader.get_variable_to_shape_map() == {"emb": [7, 2], "name": [], "step": [], "w": [2, 3]}
    np.testing.assert_array_equal(reader.get_tensor("emb"), FULL)
    assert reader.get_tensor("name") == b"x"
    assert b"emb (DT_FLOAT) [7,2], 2 slices\n" in reader.debug_string()
    with pytest.raises(NotFoundError):
        reader.get_tensor("nope")
    assert os.path.basename(load_checkpoint(path).prefix) == "old"


def test_directory_uses_the_state_file_as_tf(tmp_path, v2):
    other = write_checkpoint(str(tmp_path / "model.ckpt-9"), {"v": np.ones(1)})
    with open(tmp_path / "checkpoint", "w") as file:  # a repeated singular field: the last one wins
        file.write('model_checkpoint_path: "model.ckpt-7"\nmodel_checkpoint_path: "model.ckpt-9"\n')
    assert load_checkpoint(str(tmp_path)).prefix == other
    with open(tmp_path / "checkpoint", "w") as file:  # names a checkpoint whose files are gone
        file.write('model_checkpoint_path: "model.ckpt-3"\n')
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        load_checkpoint(str(tmp_path))
    with open(tmp_path / "checkpoint", "w") as file:  # not text format: ignored, as TF does
        file.write("garbage {{{\n")
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        load_checkpoint(str(tmp_path))
    with open(tmp_path / "checkpoint", "w") as file:  # no model_checkpoint_path: TF's ValueError
        file.write('all_model_checkpoint_paths: "model.ckpt-7"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        load_checkpoint(str(tmp_path))


@pytest.mark.parametrize("version", ["V2", "V1"])
def test_read_slice_into(tmp_path, version):
    path = str(tmp_path / "m")
    path = write_checkpoint(path, VALUES) if version == "V2" else write_v1_checkpoint(path, VALUES)
    reader = load_checkpoint(path)
    assert reader.format == version
    out = np.empty((7, 2), np.float32)
    assert reader.read_slice_into("emb", None, out) is out
    np.testing.assert_array_equal(out, FULL)
    window = np.empty((3, 2), np.float32)
    assert reader.read_slice_into("emb", "2,3:-", window) is window  # across two stored slices
    np.testing.assert_array_equal(window, FULL[2:5])
    whole = np.empty((2, 3), np.float32)
    assert reader.read_slice_into("w", None, whole) is whole
    np.testing.assert_array_equal(whole, VALUES["w"])
    column = np.empty((2, 1), np.float64)  # another dtype: filled by assignment
    reader.read_slice_into("w", TensorSlice.parse("0,2:1,1"), column)
    np.testing.assert_array_equal(column, [[1.0], [1.0]])
    with pytest.raises(NotFoundError):
        reader.read_slice_into("nope", None, out)
    with pytest.raises(InvalidArgumentError):
        reader.read_slice_into("emb", None, np.empty((2, 7), np.float32))
    assert reader.get_tensor_slices("w") == []
    assert [str(s) for s in reader.get_tensor_slices("emb")] == ["0,3:-", "3,4:-"]


def test_read_slice_into_reads_straight_into_the_destination(v2, monkeypatch):
    from saver.format import bundle_files
    reads = []
    real = bundle_files.DataFileReader.read_into

    def spy(self, offset, view, key, checksum=0):
        reads.append(view.obj if hasattr(view, "obj") else None)
        return real(self, offset, view, key, checksum)
    monkeypatch.setattr(bundle_files.DataFileReader, "read_into", spy)
    reader = load_checkpoint(v2)
    out = np.empty((7, 2), np.float32)
    reader.read_slice_into("emb", None, out)
    assert len(reads) == 2 and all(np.shares_memory(r, out) for r in reads)  # each stored part read in place
