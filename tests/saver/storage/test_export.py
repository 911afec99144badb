"""saver/export.py: checkpoints to .npz / .safetensors and back, exactly, without pickling."""

import json
import os
import zipfile

import ml_dtypes
import numpy as np
import pytest

from graph.errors import DataLossError, InvalidArgumentError
from saver.storage import export
from saver.format.bundle import BundleReader, Slice, write_checkpoint
from saver.storage.reader import load_checkpoint

from tests import TEST_DATA

DATA = TEST_DATA
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
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp") or "tempstate" in p]


# ------------------------------------------------------------------ malformed files: DataLossError only


def _safetensors(path, header: dict, data: bytes = b"", raw_header: bytes = None) -> str:
    text = raw_header if raw_header is not None else json.dumps(header).encode("utf-8")
    with open(path, "wb") as file:
        file.write(len(text).to_bytes(8, "little") + text + data)
    return str(path)


def _described(tensors: dict) -> dict:
    return {"__metadata__": {export.METADATA_KEY: json.dumps({"format": 1, "tensors": tensors})}}


_ENTRY = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
_DESCRIPTION = {"dtype": "float32", "shape": [2], "stored": "w"}


@pytest.mark.parametrize("header, raw, match", [
    ({"w": {"dtype": "F32", "shape": [2]}}, None, "data_offsets"),
    ({"w": {"dtype": "F32", "data_offsets": [0, 8]}}, None, "shape"),
    ({"w": {"dtype": "F32", "shape": ["2"], "data_offsets": [0, 8]}}, None, "shape"),
    ({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, None, "non-negative"),
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, "8"]}}, None, "data_offsets"),
    ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0.0, 8.5]}}, None, "data_offsets"),
    ({"w": {"dtype": "F32", "shape": [10 ** 12, 10 ** 12], "data_offsets": [0, 8]}}, None, "data_offsets"),
    ({"w": {"dtype": "XX", "shape": [2], "data_offsets": [0, 8]}}, None, "dtype"),
    ({"w": 5}, None, "not an object"),
    ([1, 2], None, "not an object"),
    ({"__metadata__": {"a": 1}, "w": _ENTRY}, None, "__metadata__"),
    (None, b"\xff\xfe{}", "not JSON"),
    ({"__metadata__": {export.METADATA_KEY: "{not json"}, "w": _ENTRY}, None, "not JSON"),
    ({"__metadata__": {export.METADATA_KEY: "[]"}, "w": _ENTRY}, None, "not an object"),
    ({"__metadata__": {export.METADATA_KEY: '{"format": 1}'}, "w": _ENTRY}, None, "tensors"),
    ({"__metadata__": {export.METADATA_KEY: '{"format": 9, "tensors": {}}'}, "w": _ENTRY}, None, "format"),
    (dict(_described({"w": {"shape": [2], "stored": "w"}}), w=_ENTRY), None, "no 'dtype'"),
    (dict(_described({"w": {"dtype": "float32", "stored": "w"}}), w=_ENTRY), None, "no 'shape'"),
    (dict(_described({"w": dict(_DESCRIPTION, shape=[-1])}), w=_ENTRY), None, "non-negative"),
    (dict(_described({"w": dict(_DESCRIPTION, shape=[3])}), w=_ENTRY), None, "expected float32 of shape"),
    (dict(_described({"w": dict(_DESCRIPTION, dtype="no_such")}), w=_ENTRY), None, "unknown dtype"),
    (dict(_described({"w": dict(_DESCRIPTION, dtype=7)}), w=_ENTRY), None, "not a string"),
    (dict(_described({"w": dict(_DESCRIPTION, dtype="float32_ref")}), w=_ENTRY), None, "cannot be stored"),
    (dict(_described({"w": dict(_DESCRIPTION, stored="v")}), w=_ENTRY), None, "lacks"),
    (dict(_described({"w": dict(_DESCRIPTION, stored=["w"])}), w=_ENTRY), None, "not a string"),
    (dict(_described({"w": dict(_DESCRIPTION, encoding="zip")}), w=_ENTRY), None, "unknown encoding"),
    (dict(_described({"w": dict(_DESCRIPTION, encoding="view", dtype="bfloat16")}), w=_ENTRY), None, "bytes"),
    (dict(_described({"w": dict(_DESCRIPTION, dtype="string")}), w=_ENTRY), None, "encoding"),
    (dict(_described({"w": dict(_DESCRIPTION, dtype="string", encoding="strings", lengths="w")}), w=_ENTRY),
     None, "string lengths"),
    (dict(_described({"w": dict(_DESCRIPTION, slices=3)}), w=_ENTRY), None, "slices"),
    (dict(_described({"w": [1]}), w=_ENTRY), None, "not an object"),
])
def test_malformed_safetensors_raise_data_loss(tmp_path, header, raw, match):
    path = _safetensors(tmp_path / "bad.safetensors", header, b"\0" * 8, raw)
    with pytest.raises(DataLossError, match=match) as caught:
        list(export.read_tensors(path))
    assert path in str(caught.value)


def test_safetensors_header_longer_than_the_file(tmp_path):
    path = tmp_path / "bad.safetensors"
    path.write_bytes((10 ** 6).to_bytes(8, "little") + b"{}")
    with pytest.raises(DataLossError, match="implausible"):
        list(export.read_tensors(str(path)))


def _npz(path, members: dict) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for name, value in members.items():
            with archive.open(name + ".npy", "w") as member:
                if isinstance(value, bytes):
                    member.write(value)
                else:
                    np.lib.format.write_array(member, value, allow_pickle=False)
    return str(path)


def _npy_header(shape, descr="<f4") -> bytes:
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header


def _metadata(text: bytes) -> np.ndarray:
    return np.frombuffer(text, np.uint8)


@pytest.mark.parametrize("members, match", [
    ({export.METADATA_KEY: _metadata(b"\xff\xfe")}, "not JSON"),
    ({export.METADATA_KEY: _metadata(b"{nope")}, "not JSON"),
    ({export.METADATA_KEY: _metadata(b'{"format": 1}')}, "tensors"),
    ({export.METADATA_KEY: _metadata(b'{"format": 1, "tensors": {"w": {"dtype": "float32", "shape": [2, -1], '
                                     b'"stored": "w"}}}'), "w": np.zeros(2, np.float32)}, "non-negative"),
    ({export.METADATA_KEY: _metadata(b'{"format": 1, "tensors": {"w": {"dtype": "float32", "shape": [2]}}}'),
      "w": np.zeros(2, np.float32)}, "no 'stored'"),
    ({"w": _npy_header((10 ** 6, 10 ** 6)) + b"\0" * 8}, "needs 4000000000000 bytes"),
    ({"w": _npy_header((2,), "|O") + b"\0" * 16}, "Python objects"),
    ({"w": b"\x93NUMPY\x01\x00\x05\x00{{{{\n"}, "cannot be read"),
    ({"w": b"not an npy member"}, "cannot be read"),
])
def test_malformed_npz_raise_data_loss(tmp_path, members, match):
    path = _npz(tmp_path / "bad.npz", members)
    with pytest.raises(DataLossError, match=match) as caught:
        list(export.read_tensors(path))
    assert path in str(caught.value)


def test_npz_member_with_bad_crc(tmp_path, exotic):
    path = str(tmp_path / "ok.npz")
    export.export_checkpoint(exotic, path)
    data = bytearray(open(path, "rb").read())
    data[200] ^= 0xFF  # inside the first stored member's data
    open(path, "wb").write(bytes(data))
    with pytest.raises(DataLossError, match=path):
        list(export.read_tensors(path))


def test_missing_file_is_not_found(tmp_path):
    from graph.errors import NotFoundError
    for name in ("none.npz", "none.safetensors"):
        with pytest.raises(NotFoundError, match=name):
            list(export.read_tensors(str(tmp_path / name)))


def test_exported_tensor_is_public():
    assert "ExportedTensor" in export.__all__ and "checkpoint_tensors" in export.__all__
    assert not hasattr(export, "Tensor")
