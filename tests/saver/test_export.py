"""saver/export.py: checkpoints to .npz / .safetensors and back, exactly, without pickling."""

import json
import os
import zipfile

import ml_dtypes
import numpy as np
import pytest

from graph.errors import DataLossError, InvalidArgumentError
from saver import export
from saver.bundle import BundleReader, Slice, write_checkpoint
from saver.reader import load_checkpoint

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
GUIDE = os.path.join(DATA, "tf2_guide")


@pytest.fixture
def exotic(tmp_path):
    """A checkpoint of every kind of value the formats cannot hold natively."""
    prefix = str(tmp_path / "exotic")
    write_checkpoint(prefix, {
        "bf16": np.arange(6, dtype=ml_dtypes.bfloat16).reshape(2, 3),
        "f8": np.array([0.5, -2.0], dtype=ml_dtypes.float8_e4m3fn),
        "c64": np.array([1 + 2j, -3j], dtype=np.complex64),
        "strings": np.array([b"a\x00", b"", b"\xff\xfe binary"], dtype=object),
        "scalar_string": np.array(b"scalar", dtype=object),
        "qint8": np.array([(1,), (-2,)], dtype=[("qint8", "i1")]),
        "part": [Slice((4, 2), "0,1:-", np.ones((1, 2), np.float32)),
                 Slice((4, 2), "1,3:-", np.arange(6, dtype=np.float32).reshape(3, 2))],
        "empty": np.zeros((0, 3), np.int32),
        "flag": np.array(True),
    })
    return prefix


def _assert_same_checkpoint(a, b):
    with load_checkpoint(a) as left, load_checkpoint(b) as right:
        assert left.get_variable_to_dtype_map() == right.get_variable_to_dtype_map()
        assert left.get_variable_to_shape_map() == right.get_variable_to_shape_map()
        for key in left.get_variable_to_dtype_map():
            x, y = np.asarray(left.get_tensor(key)), np.asarray(right.get_tensor(key))
            if x.dtype == object:
                assert x.tolist() == y.tolist(), key
            else:
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), key


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_round_trip_is_exact(tmp_path, exotic, fmt):
    path = str(tmp_path / f"out.{fmt}")
    assert export.export_checkpoint(exotic, path) == 9
    back = export.import_checkpoint(path, str(tmp_path / "back"))
    _assert_same_checkpoint(exotic, back)
    with BundleReader(back) as reader:
        assert [str(s) for s in reader.lookup_tensor_slices("part")] == ["0,1:-", "1,3:-"]
    # same tensors in the same order and partitions: the index is byte-identical
    assert open(back + ".index", "rb").read() == open(exotic + ".index", "rb").read()


@pytest.mark.parametrize("fmt", export.FORMATS)
def test_tf_written_checkpoint_round_trip(tmp_path, fmt):
    path = str(tmp_path / f"guide.{fmt}")
    export.export_checkpoint(GUIDE, path)
    _assert_same_checkpoint(GUIDE, export.import_checkpoint(path, str(tmp_path / "back")))


def test_npz_never_needs_pickle(tmp_path, exotic):
    path = str(tmp_path / "out.npz")
    export.export_checkpoint(exotic, path, compress=True)
    with np.load(path, allow_pickle=False) as archive:
        for name in archive.files:
            assert archive[name].dtype != object
        assert archive["bf16"].dtype == np.uint8  # bytes of a type numpy files cannot name
        assert archive["c64"].dtype == np.complex64
        description = json.loads(archive[export.METADATA_KEY].tobytes())
    assert description["tensors"]["bf16"]["dtype"] == "bfloat16"
    assert description["tensors"]["part"]["slices"] == ["0,1:-", "1,3:-"]
    with zipfile.ZipFile(path) as archive:
        assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in archive.infolist())


def test_safetensors_package_reads_our_file(tmp_path, exotic):
    safetensors = pytest.importorskip("safetensors")
    path = str(tmp_path / "out.safetensors")
    export.export_checkpoint(exotic, path)
    with safetensors.safe_open(path, framework="np") as opened:  # the reference parser validates the header
        assert export.METADATA_KEY in opened.metadata()
        assert opened.get_slice("bf16").get_dtype() == "BF16"  # native codes where safetensors has them
        assert opened.get_slice("f8").get_dtype() == "F8_E4M3"
        assert opened.get_tensor("c64").tolist() == [1 + 2j, -3j]
        assert opened.get_tensor("part").tolist() == [[1, 1], [0, 1], [2, 3], [4, 5]]
        assert opened.get_tensor("empty").shape == (0, 3)
    header_length = int.from_bytes(open(path, "rb").read(8), "little")
    assert header_length % 8 == 0


def test_foreign_files_import_by_numpy_dtype(tmp_path):
    np.savez(tmp_path / "plain.npz", w=np.ones((2, 2), np.float32), step=np.array(7, np.int64))
    prefix = export.import_checkpoint(str(tmp_path / "plain.npz"), str(tmp_path / "from_npz"))
    with load_checkpoint(prefix) as reader:
        assert reader.get_variable_to_shape_map() == {"w": [2, 2], "step": []}
        assert reader.get_tensor("step") == 7
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    safetensors_numpy.save_file({"layer/kernel": np.arange(3, dtype=np.float16)}, str(tmp_path / "t.safetensors"))
    prefix = export.import_checkpoint(str(tmp_path / "t.safetensors"), str(tmp_path / "from_st"))
    with load_checkpoint(prefix) as reader:
        assert reader.get_variable_to_dtype_map()["layer/kernel"].name == "float16"


def test_selected_keys_and_tensor_iterator(tmp_path, exotic):
    path = str(tmp_path / "some.npz")
    assert export.export_checkpoint(exotic, path, keys=["bf16", "strings"]) == 2
    tensors = {t.key: t for t in export.read_tensors(path)}
    assert sorted(tensors) == ["bf16", "strings"]
    assert tensors["strings"].value.tolist() == [b"a\x00", b"", b"\xff\xfe binary"]


def test_errors(tmp_path, exotic):
    with pytest.raises(InvalidArgumentError, match="unknown export format"):
        export.export_checkpoint(exotic, str(tmp_path / "out.h5"))
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(DataLossError, match="not JSON"):
        list(export.read_tensors(str(bad)))
    bad.write_bytes(b"\x01")
    with pytest.raises(DataLossError, match="too short"):
        list(export.read_tensors(str(bad)))
    (tmp_path / "bad.npz").write_bytes(b"PK not a zip")
    with pytest.raises(DataLossError, match="npz"):
        list(export.read_tensors(str(tmp_path / "bad.npz")))
    path = str(tmp_path / "truncated.safetensors")
    export.export_checkpoint(exotic, path)
    data = open(path, "rb").read()
    open(path, "wb").write(data[:-4])
    with pytest.raises(DataLossError, match="data_offsets"):
        list(export.read_tensors(path))
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
