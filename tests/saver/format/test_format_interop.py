"""Interop with real TensorFlow (the oracle): TF-written files read here, ours read and restored by TF,
and byte-identical .index / .data files for the same variables."""

import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

from graph.base import dtypes
from saver.format.bundle import BundleReader, BundleWriter, Slice, data_filename, merge_bundles, write_checkpoint
from saver.format.coding import TensorSlice
from saver.format.proto import TrackableObjectGraph, VariantTensorDataProto
from saver.storage.reader import load_checkpoint
from saver.format.v1 import V1Reader, write_v1_checkpoint

pytestmark = pytest.mark.tf

VALUES = {
    "f32": np.array([1.5, -2], np.float32), "f64": np.arange(6.0).reshape(2, 3), "f16": np.array([1, 2.5], np.float16),
    "bf16": np.array([1, 2.5, -3], ml_dtypes.bfloat16), "i8": np.array([-1, 2], np.int8),
    "i16": np.array([-300], np.int16), "i32": np.int32(7), "i64": np.array([2 ** 40], np.int64),
    "u8": np.array([255], np.uint8), "u16": np.array([65535], np.uint16), "u32": np.array([2 ** 32 - 1], np.uint32),
    "u64": np.array([2 ** 64 - 1], np.uint64), "b": np.array([True, False]), "c64": np.array([1 + 2j], np.complex64),
    "c128": np.array([[3 - 4j]], np.complex128), "s": np.array([b"ab", b"xyz", b"\x00\xff", b"q" * 300], object),
    "se": np.zeros((0,), object), "ss": np.array(b"scalar", object), "empty": np.zeros((0, 3), np.float32),
    "odd/key.name-1_Z": np.float32(3), "scope/w": np.arange(12, dtype=np.int32).reshape(3, 4),
}
V1_UNSUPPORTED = ("bf16", "u32", "u64")  # TF's SaveSlices: "Saving data type ... not yet supported"


def _read_all(path):
    with open(path, "rb") as file:
        return file.read()


def _same_files(ours, theirs, suffixes):
    for suffix in suffixes:
        assert _read_all(ours + suffix) == _read_all(theirs + suffix), suffix


def _equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype == object:
        assert list(a.flat) == list(b.flat)
    else:
        assert a.tobytes() == b.tobytes()


def _build_graph(tf1, partitioned=True):
    variables = []
    for name, value in VALUES.items():
        dtype = tf1.string if np.asarray(value).dtype == object else tf1.as_dtype(np.asarray(value).dtype)
        variables.append(tf1.Variable(value, dtype=dtype, name=name))
    emb = None
    if partitioned:
        emb = tf1.get_variable("emb", shape=[7, 2], initializer=tf1.random_normal_initializer(seed=1),
                               partitioner=tf1.fixed_size_partitioner(3))
        with tf1.variable_scope("axis1"):
            tf1.get_variable("w", shape=[2, 5], dtype=tf1.float64, initializer=tf1.random_uniform_initializer(seed=2),
                             partitioner=lambda shape, dtype: [1, 2])
    return variables, emb


@pytest.fixture(scope="module")
def tf_saved(tf_module, tmp_path_factory):
    """One TF1 session: V2 save, V1 save, and the variable values (TF is slow to start; do it once)."""
    tf1 = tf_module
    out = tmp_path_factory.mktemp("tf")
    (out / "v1").mkdir()  # V1 saves do not create the directory
    with tf1.Graph().as_default():
        variables, _ = _build_graph(tf1)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            values = {v.op.name: sess.run(v) for v in tf1.global_variables()}
            v2 = tf1.train.Saver().save(sess, str(out / "v2" / "model.ckpt"), write_meta_graph=False)
            v1_vars = [v for v in tf1.global_variables() if v.op.name not in V1_UNSUPPORTED]
            v1 = tf1.train.Saver(v1_vars, write_version=tf1.train.SaverDef.V1).save(
                sess, str(out / "v1" / "model.ckpt"), write_meta_graph=False)
    return v2, v1, values


def _full_values(values):
    """{checkpoint name: full array} with partitions joined."""
    full = {}
    for name, value in values.items():
        if "/part_" in name:
            continue
        full[name] = value
    parts = {}
    for name, value in values.items():
        if "/part_" in name:
            base, index = name.rsplit("/part_", 1)
            parts.setdefault(base, []).append((int(index), value))
    for base, pieces in parts.items():
        pieces.sort()
        axis = 0 if base == "emb" else 1
        full[base] = np.concatenate([p for _, p in pieces], axis=axis)
    return full


def test_tf1_v2_checkpoint_read_here_and_rewritten_byte_identical(tf_saved, tmp_path):
    prefix, _, values = tf_saved
    full = _full_values(values)
    reader = load_checkpoint(os.path.dirname(prefix))
    assert reader.prefix == prefix
    shapes = reader.get_variable_to_shape_map()
    assert shapes == {k: list(np.shape(v)) for k, v in full.items()}
    assert reader.get_variable_to_dtype_map()["bf16"] == dtypes.bfloat16
    for name, value in full.items():
        got = reader.get_tensor(name)
        _equal(got if np.ndim(value) else np.asarray(got, dtype=np.asarray(value).dtype), value)
    # rewrite from what we read: same slices in the same order -> identical bytes
    bundle = BundleReader(prefix)
    tensors = {}
    for name in shapes:
        slices = bundle.lookup_tensor_slices(name)
        tensors[name] = [Slice(shapes[name], s, bundle.lookup_slice(name, s)) for s in slices] if slices else \
            bundle.lookup(name)
    ours = write_checkpoint(str(tmp_path / "model.ckpt"), tensors)
    _same_files(ours, prefix, [".index", ".data-00000-of-00001"])


def test_tf1_v2_debug_string_matches(tf_saved, tf_module):
    prefix, _, _ = tf_saved
    theirs = tf_module.train.load_checkpoint(prefix)
    ours = load_checkpoint(prefix)
    assert ours.debug_string() == theirs.debug_string()
    assert sorted(ours.get_variable_to_shape_map().items()) == sorted(theirs.get_variable_to_shape_map().items())
    assert {k: v.name for k, v in ours.get_variable_to_dtype_map().items()} == \
        {k: v.name for k, v in theirs.get_variable_to_dtype_map().items()}


def test_tf1_v1_checkpoint_read_here_and_rewritten_byte_identical(tf_saved, tmp_path):
    _, path, values = tf_saved
    full = _full_values({k: v for k, v in values.items() if k not in V1_UNSUPPORTED})
    reader = load_checkpoint(path)
    assert reader.format == "V1"
    for name, value in full.items():
        _equal(np.asarray(reader.get_tensor(name), dtype=np.asarray(value).dtype), value)
    v1 = V1Reader(path)
    tensors = {}
    for name in v1.keys():
        _, shape = v1.dtype_and_shape(name)
        stored = [s for _, s in v1._tensors[name][2]]
        is_part = stored != [TensorSlice.full(len(shape))]
        tensors[name] = [Slice(shape, s, v1.get_tensor(name, s)) for s in stored] if is_part else v1.get_tensor(name)
    ours = write_v1_checkpoint(str(tmp_path / "model.ckpt"), tensors)
    assert _read_all(ours) == _read_all(path)


def test_ours_read_by_tf_and_restored_by_saver(tf1, tmp_path):
    rng = np.random.default_rng(0)
    emb = rng.standard_normal((7, 2)).astype(np.float32)
    w = rng.standard_normal((2, 5))
    tensors = dict(VALUES)
    tensors["emb"] = [Slice((7, 2), "0,3:0,2", emb[:3]), Slice((7, 2), "3,2:0,2", emb[3:5]),
                      Slice((7, 2), "5,2:0,2", emb[5:])]
    tensors["axis1/w"] = [Slice((2, 5), "0,2:0,3", w[:, :3]), Slice((2, 5), "0,2:3,2", w[:, 3:])]
    prefix = write_checkpoint(str(tmp_path / "ours"), tensors)
    theirs = tf1.train.load_checkpoint(prefix)
    for name, value in VALUES.items():
        _equal(np.asarray(theirs.get_tensor(name), dtype=np.asarray(value).dtype), value)
    _build_graph(tf1)
    with tf1.Session() as sess:
        tf1.train.Saver().restore(sess, prefix)
        got = _full_values({v.op.name: sess.run(v) for v in tf1.global_variables()})
    for name, value in VALUES.items():
        _equal(np.asarray(got[name], dtype=np.asarray(value).dtype), value)
    np.testing.assert_array_equal(got["emb"], emb)
    np.testing.assert_array_equal(got["axis1/w"], w)


def test_sharded_save_and_merge_byte_identical(tf_module, tmp_path):
    tf1 = tf_module
    values = {"a": np.float32(1), "z": np.arange(3.0), "b": np.array([b"s"], object), "c": np.int64(4)}
    placement = {"a": 0, "z": 0, "b": 1, "c": 2}
    with tf1.Graph().as_default():
        for name, value in values.items():
            with tf1.device(f"/cpu:{placement[name]}"):
                tf1.Variable(value, dtype=tf1.string if name == "b" else None, name=name)
        config = tf1.ConfigProto(device_count={"CPU": 3})
        (tmp_path / "tf").mkdir()  # sharded saves need the parent directory (spec §3)
        with tf1.Session(config=config) as sess:
            sess.run(tf1.global_variables_initializer())
            theirs = tf1.train.Saver(sharded=True).save(sess, str(tmp_path / "tf" / "m"), write_meta_graph=False)
    assert sorted(os.listdir(tmp_path / "tf")) == ["checkpoint", "m.data-00000-of-00003", "m.data-00001-of-00003",
                                                   "m.data-00002-of-00003", "m.index"]
    reader = load_checkpoint(theirs)
    for name, value in values.items():
        _equal(np.asarray(reader.get_tensor(name), dtype=np.asarray(value).dtype) if np.ndim(value) == 0
               and np.asarray(value).dtype != object else reader.get_tensor(name), value)
    # ours: the same shards through <prefix>_temp/part-k + merge
    ours = str(tmp_path / "ours" / "m")
    os.makedirs(ours + "_temp")
    shard_prefixes = []
    for shard in range(3):
        shard_prefix = ours + "_temp/part-%05d-of-%05d" % (shard, 3)
        write_checkpoint(shard_prefix, {k: v for k, v in values.items() if placement[k] == shard})
        shard_prefixes.append(shard_prefix)
    merge_bundles(shard_prefixes, ours)
    assert not os.path.exists(ours + "_temp")
    _same_files(ours, theirs, [".index"] + [".data-%05d-of-00003" % k for k in range(3)])


def test_multi_block_index_from_tf(tf1, tmp_path):
    names = ["layer_%04d/" % i + "k" * 480 for i in range(620)]
    value = tf1.constant(np.arange(4, dtype=np.float32))
    save = tf1.raw_ops.SaveV2(prefix=str(tmp_path / "big"), tensor_names=names, shape_and_slices=[""] * len(names),
                              tensors=[value] * len(names))
    with tf1.Session() as sess:
        sess.run(save)
    prefix = str(tmp_path / "big")
    with BundleReader(prefix) as reader:
        assert reader._table.num_blocks >= 2
        assert reader.keys() == sorted(names)
        _equal(reader.lookup(names[-1]), np.arange(4, dtype=np.float32))
    ours = write_checkpoint(str(tmp_path / "ours"), {n: np.arange(4, dtype=np.float32) for n in names})
    _same_files(ours, prefix, [".index", ".data-00000-of-00001"])


TF2_SCRIPT = textwrap.dedent("""
    import os, sys
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    import numpy as np
    import tensorflow as tf
    out = sys.argv[1]
    ds = iter(tf.data.Dataset.range(10))
    next(ds)
    ckpt = tf.train.Checkpoint(step=tf.Variable(3), net=tf.Module(), iterator=ds)
    ckpt.net.w = tf.Variable([[1.0, 2.0]])
    ckpt.write(os.path.join(out, "obj"))
    tf.raw_ops.SaveV2(prefix=os.path.join(out, "raw"), tensor_names=["zz", "aa", "mm"], shape_and_slices=["", "", ""],
                      tensors=[tf.constant([1, 2]), tf.constant(["x", "yy"]), tf.constant(2.5)])
""")


def test_tf2_object_checkpoint_and_unsorted_savev2(tmp_path):
    subprocess.run([sys.executable, "-c", TF2_SCRIPT, str(tmp_path)], check=True, timeout=120)
    reader = load_checkpoint(str(tmp_path / "obj"))
    shapes = reader.get_variable_to_shape_map()
    assert shapes["step/.ATTRIBUTES/VARIABLE_VALUE"] == []
    assert reader.get_tensor("step/.ATTRIBUTES/VARIABLE_VALUE") == 3
    np.testing.assert_array_equal(reader.get_tensor("net/w/.ATTRIBUTES/VARIABLE_VALUE"), [[1.0, 2.0]])
    graph = TrackableObjectGraph.from_bytes(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    keys = {a.checkpoint_key for node in graph.nodes for a in node.attributes}
    assert "net/w/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert graph.nodes[0].has_checkpoint_values is not None
    assert reader.get_variable_to_dtype_map()["iterator/.ATTRIBUTES/ITERATOR_STATE"] == dtypes.variant
    for element in reader.get_tensor("iterator/.ATTRIBUTES/ITERATOR_STATE").flat:
        assert VariantTensorDataProto.from_bytes(element).to_bytes() == element
    raw = load_checkpoint(str(tmp_path / "raw"))
    assert list(raw.get_tensor("aa")) == [b"x", b"yy"] and raw.get_tensor("mm") == 2.5
    np.testing.assert_array_equal(raw.get_tensor("zz"), [1, 2])
    with BundleReader(str(tmp_path / "raw")) as bundle:  # data kept in SaveV2's input order
        assert bundle.lookup_entry("zz").offset == 0 and bundle.lookup_entry("aa").offset > 0
    # a variant tensor round-trips through our writer byte for byte
    with BundleReader(str(tmp_path / "obj")) as bundle:
        entry = bundle.lookup_entry("iterator/.ATTRIBUTES/ITERATOR_STATE")
        with BundleWriter(str(tmp_path / "again")) as writer:
            mine = writer.add("it", bundle.lookup("iterator/.ATTRIBUTES/ITERATOR_STATE"), dtype=dtypes.variant)
    assert (mine.size, mine.crc32c) == (entry.size, entry.crc32c)
    with open(data_filename(str(tmp_path / "obj"), entry.shard_id, 1), "rb") as file:
        file.seek(entry.offset)
        assert file.read(entry.size) == _read_all(data_filename(str(tmp_path / "again"), 0, 1))
