"""Tests for saver/state.py: the `checkpoint` state file and checkpoint_management's functions."""

import json
import math
import os
import random
import shutil

import pytest

from graph import errors
from saver.storage import state
from saver.storage.state import CheckpointState, ParseError

from tests import TEST_DATA

DATA = TEST_DATA
STATE_DATA = os.path.join(DATA, "state")
with open(os.path.join(STATE_DATA, "cases.json"), encoding="utf-8") as _f:
    CASES = json.load(_f)

SPEC_TEXT = (
    'model_checkpoint_path: "ckpt-5"\n'
    'all_model_checkpoint_paths: "ckpt-3"\n'
    'all_model_checkpoint_paths: "ckpt-4"\n'
    'all_model_checkpoint_paths: "ckpt-5"\n'
    "all_model_checkpoint_timestamps: 1795334830.1994243\n"
    "last_preserved_timestamp: 1795334828.8838868\n"
)


def _golden(name):
    with open(os.path.join(STATE_DATA, name + ".txt"), "rb") as f:
        return f.read()


def _write_case(case, tmp_path, monkeypatch):
    """Runs our update_checkpoint_state* as make_fixtures.py ran TF's; returns the written bytes."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    if not os.path.isabs(case["save_dir"]):
        os.makedirs(case["save_dir"], exist_ok=True)
    stamps = case["all_model_checkpoint_timestamps"]
    last = case["last_preserved_timestamp"]
    kwargs = dict(all_model_checkpoint_paths=list(case["all_model_checkpoint_paths"]),
                  latest_filename=str(out / "checkpoint"),  # absolute: os.path.join ignores save_dir
                  all_model_checkpoint_timestamps=[float(s) for s in stamps] if stamps else stamps,
                  last_preserved_timestamp=float(last) if last is not None else None)
    if case["save_relative_paths"] is None:
        state.update_checkpoint_state(case["save_dir"], case["model_checkpoint_path"], **kwargs)
    else:
        state.update_checkpoint_state_internal(case["save_dir"], case["model_checkpoint_path"],
                                               save_relative_paths=case["save_relative_paths"], **kwargs)
    assert os.listdir(out) == ["checkpoint"]  # the .tmp<uuid> file was renamed away
    return (out / "checkpoint").read_bytes()


# ------------------------------------------------------------------------------------ text format


def test_spec_example_round_trips():
    parsed = CheckpointState.from_text(SPEC_TEXT)
    assert parsed == CheckpointState("ckpt-5", ["ckpt-3", "ckpt-4", "ckpt-5"], [1795334830.1994243],
                                     1795334828.8838868)
    assert parsed.to_text() == SPEC_TEXT
    assert str(parsed) == SPEC_TEXT


def test_empty_state_is_empty_text():
    assert CheckpointState().to_text() == ""
    assert CheckpointState.from_text("") == CheckpointState()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_update_checkpoint_state_matches_tf_golden(case, tmp_path, monkeypatch):
    assert _write_case(case, tmp_path, monkeypatch) == _golden(case["name"])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_files_round_trip(case):
    data = _golden(case["name"])
    assert CheckpointState.from_text(data.decode("utf-8")).to_text().encode("utf-8") == data


def test_string_escapes_and_doubles():
    text = CheckpointState("a\"b'c\\d\te\nf\rg\x00\x1f\x7fé😀", [], [1e20, 2.0, 0.1, -0.0, math.inf, -math.inf],
                           math.nan).to_text()
    assert text == ('model_checkpoint_path: "a\\"b\\\'c\\\\d\\te\\nf\\rg\\000\\037\\177é😀"\n'
                    "all_model_checkpoint_timestamps: 1e+20\nall_model_checkpoint_timestamps: 2.0\n"
                    "all_model_checkpoint_timestamps: 0.1\nall_model_checkpoint_timestamps: -0.0\n"
                    "all_model_checkpoint_timestamps: inf\nall_model_checkpoint_timestamps: -inf\n"
                    "last_preserved_timestamp: nan\n")


def test_zero_fields_left_out_but_negative_zero_written():
    assert CheckpointState(last_preserved_timestamp=0.0).to_text() == ""
    assert CheckpointState(last_preserved_timestamp=-0.0).to_text() == "last_preserved_timestamp: -0.0\n"
    assert CheckpointState(all_model_checkpoint_paths=["", "a"]).to_text() == \
        'all_model_checkpoint_paths: ""\nall_model_checkpoint_paths: "a"\n'


def test_bytes_values_and_bad_strings():
    assert CheckpointState(model_checkpoint_path=b"ab\xc3\xa9").to_text() == 'model_checkpoint_path: "abé"\n'
    with pytest.raises(ValueError, match="model_checkpoint_path must be UTF-8"):
        CheckpointState(model_checkpoint_path=b"\xff").to_text()
    with pytest.raises(ValueError, match="not encodable"):
        CheckpointState(model_checkpoint_path="\udcff").to_text()
    with pytest.raises(TypeError, match="must be a string"):
        CheckpointState(model_checkpoint_path=5).to_text()


# What protobuf 7.36 text_format.Merge gives for CheckpointState (observed); None = ParseError.
PARSE_CASES = [
    ('# hi\nmodel_checkpoint_path: "a" # c\n', "a"),
    ("model_checkpoint_path: 'a\"b'", 'a"b'),
    ('model_checkpoint_path: "a" \'b\'', "ab"),
    ('model_checkpoint_path: "a"\nmodel_checkpoint_path: "b"\n', "b"),
    ('model_checkpoint_path:"a"all_model_checkpoint_paths:"b"', "a"),
    ('model_checkpoint_path\t:\r\n"a"\x0b\x0c', "a"),
    ('model_checkpoint_path: "\\303\\251x\\n\\t\\x41"', "éx\n\tA"),
    ('model_checkpoint_path: "\\u00e9\\U0001F600"', "é😀"),
    ('model_checkpoint_path: "\\x4"', "\x04"),
    ('model_checkpoint_path: "\\x414"', "A4"),
    ('model_checkpoint_path: "\\1234"', "S4"),
    ('model_checkpoint_path: "\\0"', "\x00"),
    ('model_checkpoint_path: "a\\qb"', "a\\qb"),
    ('model_checkpoint_path: "\\a\\b\\f\\v\\?"', "\x07\x08\x0c\x0b\\?"),
    ('model_checkpoint_path: "\\8"', "\\8"),
    ('model_checkpoint_path: "\\\'\\\\"', "'\\"),
    ('model_checkpoint_path: "\\😀"', "\\U0001f600"),  # protobuf quirk: raw_unicode_escape round trip
    ('model_checkpoint_path: "a"\n#c\n;', "a"),
    ('model_checkpoint_path: "abc', None),
    ('model_checkpoint_path: "\\xff"', None),
    ('model_checkpoint_path: "\\377"', None),
    ('model_checkpoint_path: "\\400"', None),
    ('model_checkpoint_path: "\\uD800"', None),
    ('model_checkpoint_path: "a\\"', None),
    ('model_checkpoint_path: abc', None),
    ('model_checkpoint_path: 5', None),
    ('model_checkpoint_path {', None),
    ('model_checkpoint_path "a"', None),
    ('model_checkpoint_path: ["a"]', None),
    ('model_checkpoint_path: "a",,', None),
    ('model_checkpoint_path: "a"\nfoo: 1\n', None),
    ('1: "a"', None),
    ('Model_checkpoint_path: "a"', None),
    ("\ufeffmodel_checkpoint_path: 'a'", None),
    ("[ext]: 1", None),
    ("hello world\n", None),
]


@pytest.mark.parametrize("text, expected", PARSE_CASES)
def test_parse_like_protobuf(text, expected):
    if expected is None:
        with pytest.raises(ParseError):
            CheckpointState.from_text(text)
    else:
        assert CheckpointState.from_text(text).model_checkpoint_path == expected


DOUBLE_CASES = [
    ("nan", math.nan), ("-inf", -math.inf), ("1e400", math.inf), ("1.5f", 1.5), ("-Infinity", -math.inf),
    (".5", 0.5), ("+5", 5.0), ("1_0", 10.0), ("NaN", math.nan), ("infinityf", math.inf), ("1e5f", 1e5),
    ("5.", 5.0), ("0", 0.0), ("-0", -0.0), ("0.5e-3F", 0.0005), ("inff", math.inf), ("-nan", math.nan),
    ("0x10", None), ("010", None), ("01.5", None), ("- 5", None), ("1e", None), ("00", None), ('"1"', None),
    ("1__0", None),
]


@pytest.mark.parametrize("token, expected", DOUBLE_CASES)
def test_parse_doubles_like_protobuf(token, expected):
    text = "all_model_checkpoint_timestamps: " + token
    if expected is None:
        with pytest.raises(ParseError, match=r"^1:34 : "):
            CheckpointState.from_text(text)
    else:
        (value,) = CheckpointState.from_text(text).all_model_checkpoint_timestamps
        assert repr(value) == repr(expected)


def test_parse_lists_and_separators():
    parsed = CheckpointState.from_text('model_checkpoint_path: "a"; all_model_checkpoint_paths: ["b", \'c\'],\n'
                                       "all_model_checkpoint_paths: []\nall_model_checkpoint_timestamps: [1, 2.5]")
    assert parsed == CheckpointState("a", ["b", "c"], [1.0, 2.5])
    with pytest.raises(ParseError):
        CheckpointState.from_text('all_model_checkpoint_paths: ["a",]')


def test_parse_error_names_line_and_column():
    with pytest.raises(ParseError) as info:
        CheckpointState.from_text('model_checkpoint_path: "a"\nbogus: 1\n')
    assert (info.value.GetLine(), info.value.GetColumn()) == (2, 1)
    assert 'has no field named "bogus"' in str(info.value)


# ------------------------------------------------------------------------------ reading the file


def test_get_checkpoint_state_of_tf2_guide_fixture():
    directory = os.path.join(DATA, "tf2_guide")
    got = state.get_checkpoint_state(directory)
    assert got.model_checkpoint_path == os.path.join(directory, "ckpt-5")
    assert got.all_model_checkpoint_paths == [os.path.join(directory, "ckpt-%d" % i) for i in (3, 4, 5)]
    assert len(got.all_model_checkpoint_timestamps) == 3 and got.last_preserved_timestamp > 1e9
    with open(os.path.join(directory, "checkpoint"), encoding="utf-8") as f:
        text = f.read()
    assert CheckpointState.from_text(text).to_text() == text
    assert state.latest_checkpoint(directory) == os.path.join(directory, "ckpt-5")


def test_get_checkpoint_state_keeps_absolute_and_joins_relative(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "/abs/m-2"\n'
                                         'all_model_checkpoint_paths: "m-1"\nall_model_checkpoint_paths: "/abs/m-2"\n')
    got = state.get_checkpoint_state(str(tmp_path))
    assert got.model_checkpoint_path == "/abs/m-2"
    assert got.all_model_checkpoint_paths == [str(tmp_path / "m-1"), "/abs/m-2"]
    assert state.get_checkpoint_state(tmp_path) == got  # os.PathLike accepted


def test_latest_filename(tmp_path):
    state.update_checkpoint_state(str(tmp_path), str(tmp_path / "m-1"), latest_filename="mystate")
    assert os.listdir(tmp_path) == ["mystate"]
    assert state.get_checkpoint_state(str(tmp_path)) is None
    assert state.get_checkpoint_state(str(tmp_path), "mystate").model_checkpoint_path == str(tmp_path / "m-1")


@pytest.mark.parametrize("content", [b"hello world\n", b'model_checkpoint_path: "a"\nfoo: 1\n',
                                     b'model_checkpoint_path "a"\n', b'last_preserved_timestamp: "x"\n'])
def test_unparsable_state_file_is_ignored_like_tf(tmp_path, content, caplog):
    (tmp_path / "checkpoint").write_bytes(content)
    assert state.get_checkpoint_state(str(tmp_path)) is None
    assert "Checkpoint ignored" in caplog.text
    assert state.latest_checkpoint(str(tmp_path)) is None


@pytest.mark.parametrize("content", [b"", b'all_model_checkpoint_paths: "a"\n', b"# only a comment\n"])
def test_state_without_model_path_raises_value_error_like_tf(tmp_path, content):
    (tmp_path / "checkpoint").write_bytes(content)
    with pytest.raises(ValueError, match="Invalid checkpoint state loaded from " + str(tmp_path)):
        state.get_checkpoint_state(str(tmp_path))


@pytest.mark.parametrize("content", [b"\x00\xff\xfe garbage", b'model_checkpoint_path: "\xff\xfe"\n'])
def test_non_utf8_state_file_is_a_clear_value_error(tmp_path, content):
    # TF raises UnicodeDecodeError (a ValueError) here; we raise a ValueError naming the file and offset.
    (tmp_path / "checkpoint").write_bytes(content)
    with pytest.raises(ValueError, match=r"checkpoint is not UTF-8 text: byte 0xff at offset"):
        state.get_checkpoint_state(str(tmp_path))


def test_missing_or_unreadable_state_file_gives_none(tmp_path):
    assert state.get_checkpoint_state(str(tmp_path)) is None
    assert state.get_checkpoint_state(str(tmp_path / "no_such_dir")) is None
    (tmp_path / "checkpoint").mkdir()  # a directory where the file should be
    assert state.get_checkpoint_state(str(tmp_path)) is None


# ------------------------------------------------------------------------------ writing the file


def test_generate_checkpoint_state_proto_rules():
    paths = ["rel/m-1"]
    got = state.generate_checkpoint_state_proto("rel", "rel/m-2", paths)
    assert got == CheckpointState("m-2", ["m-1", "m-2"])
    assert paths == ["m-1", "m-2"]  # the caller's list updated in place, as TF does
    got = state.generate_checkpoint_state_proto("/abs", "rel/m-2", ["/x/m-1", "rel/m-2"], [1, 2], 0.5)
    assert got == CheckpointState("rel/m-2", ["/x/m-1", "rel/m-2"], [1.0, 2.0], 0.5)
    with pytest.raises(ValueError, match="Checkpoint timestamps, if provided, must match checkpoint paths"):
        state.generate_checkpoint_state_proto("/abs", "/abs/m-2", ["/abs/m-1"], [1.0])


def test_save_relative_paths(tmp_path):
    save_dir = str(tmp_path)
    state.update_checkpoint_state_internal(save_dir, str(tmp_path / "m-2"), [str(tmp_path / "m-1")],
                                           save_relative_paths=True)
    assert (tmp_path / "checkpoint").read_text() == ('model_checkpoint_path: "m-2"\n'
                                                     'all_model_checkpoint_paths: "m-1"\n'
                                                     'all_model_checkpoint_paths: "m-2"\n')
    state.update_checkpoint_state(save_dir, str(tmp_path / "m-3"))
    assert (tmp_path / "checkpoint").read_text() == ('model_checkpoint_path: "%s/m-3"\n'
                                                     'all_model_checkpoint_paths: "%s/m-3"\n' % (tmp_path, tmp_path))


def test_state_path_conflict_and_missing_dir(tmp_path):
    with pytest.raises(RuntimeError, match="conflicts with path used for checkpoint state"):
        state.update_checkpoint_state(str(tmp_path), str(tmp_path / "checkpoint"))
    # TF names its temporary checkpoint.tmp<uuid>; we name the file being written (issue 14)
    with pytest.raises(errors.NotFoundError, match="no_dir/checkpoint; No such file"):
        state.update_checkpoint_state(str(tmp_path / "no_dir"), "/x/m-1")


def test_atomic_write_uses_tmp_uuid_name(tmp_path, monkeypatch):
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        seen.append((os.path.basename(src), os.path.basename(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(state.os, "replace", spy)
    state.update_checkpoint_state(str(tmp_path), str(tmp_path / "m-1"))
    ((src, dst),) = seen
    assert dst == "checkpoint" and src.startswith("checkpoint.tmp") and len(src) == len("checkpoint.tmp") + 32
    assert int(src[len("checkpoint.tmp"):], 16) >= 0


# ------------------------------------------------------------------------- checkpoint file helpers


def _touch(path):
    with open(path, "wb") as f:
        f.write(b"x")


def test_latest_checkpoint_needs_index_or_v1_file(tmp_path, caplog):
    d = str(tmp_path)
    state.update_checkpoint_state(d, os.path.join(d, "m-1"))
    assert state.latest_checkpoint(d) is None
    assert "Couldn't match files for checkpoint" in caplog.text
    _touch(os.path.join(d, "m-1.data-00000-of-00001"))
    assert state.latest_checkpoint(d) is None  # the data file alone is not enough
    _touch(os.path.join(d, "m-1.index"))
    assert state.latest_checkpoint(d) == os.path.join(d, "m-1")
    state.update_checkpoint_state(d, os.path.join(d, "v1-1"))
    _touch(os.path.join(d, "v1-1"))
    assert state.latest_checkpoint(d) == os.path.join(d, "v1-1")
    state.update_checkpoint_state(d, os.path.join(d, "sh-?????-of-00002"))  # V1 sharded: a glob
    assert state.latest_checkpoint(d) is None
    _touch(os.path.join(d, "sh-00000-of-00002"))
    assert state.latest_checkpoint(d) == os.path.join(d, "sh-?????-of-00002")


def test_latest_checkpoint_relative_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("rel")
    state.update_checkpoint_state("rel", "rel/m-8")
    assert (tmp_path / "rel" / "checkpoint").read_text() == ('model_checkpoint_path: "m-8"\n'
                                                             'all_model_checkpoint_paths: "m-8"\n')
    _touch("rel/m-8.index")
    assert state.latest_checkpoint("rel") == "rel/m-8"


def test_checkpoint_exists_and_mtimes(tmp_path):
    d = str(tmp_path)
    _touch(os.path.join(d, "a.index"))
    _touch(os.path.join(d, "b"))
    os.utime(os.path.join(d, "a.index"), ns=(1_500_000_000_700_000_000, 1_500_000_000_700_000_000))
    os.utime(os.path.join(d, "b"), (1234.5, 1234.5))
    assert state.checkpoint_exists(os.path.join(d, "a"))
    assert state.checkpoint_exists_internal(os.path.join(d, "b"))
    assert not state.checkpoint_exists(os.path.join(d, "c"))
    mtimes = state.get_checkpoint_mtimes([os.path.join(d, p) for p in ("a", "c", "b")])
    assert mtimes == [1500000000.0, 1234.0]  # whole seconds, as TF's stat; missing ones skipped


def test_remove_checkpoint(tmp_path):
    d = str(tmp_path)
    for name in ("m-1.index", "m-1.data-00000-of-00002", "m-1.data-00001-of-00002", "m-1.meta", "m-10.index",
                 "v1", "v1.meta", "v1x"):
        _touch(os.path.join(d, name))
    state.remove_checkpoint(os.path.join(d, "m-1"))
    assert sorted(os.listdir(d)) == ["m-10.index", "v1", "v1.meta", "v1x"]
    state.remove_checkpoint(os.path.join(d, "v1"), state.V1)
    assert sorted(os.listdir(d)) == ["m-10.index", "v1x"]
    state.remove_checkpoint(os.path.join(d, "nothing"))  # missing files are fine


@pytest.mark.parametrize("prefix, suffix, expected", [
    ("a/m-00001-of-00002", "meta", "a/m.meta"), ("a/m-?????-of-00002", "meta", "a/m.meta"),
    ("m.ckpt-12", "x", "m.ckpt-12.x"), ("model.ckpt-123456-00001-of-00005", "meta", "model.ckpt-123456.meta"),
])
def test_meta_graph_filename(prefix, suffix, expected):
    assert state.meta_graph_filename(prefix, suffix) == expected


def test_checkpoints_iterator(tmp_path, monkeypatch):
    d = str(tmp_path)
    clock = [1000.0]
    plan = {1001.0: "m-1", 1003.0: "m-2"}  # checkpoints appear at these fake times

    def fake_sleep(seconds):
        clock[0] += seconds
        for when, name in plan.items():
            if clock[0] >= when and not os.path.exists(os.path.join(d, name + ".index")):
                _touch(os.path.join(d, name + ".index"))
                state.update_checkpoint_state(d, os.path.join(d, name))

    monkeypatch.setattr(state.time, "time", lambda: clock[0])
    monkeypatch.setattr(state.time, "sleep", fake_sleep)
    calls = []
    got = list(state.checkpoints_iterator(d, min_interval_secs=0.5, timeout=3,
                                          timeout_fn=lambda: calls.append(clock[0]) or len(calls) > 1))
    assert got == [os.path.join(d, "m-1"), os.path.join(d, "m-2")]
    assert len(calls) == 2
    assert list(state.checkpoints_iterator(str(tmp_path / "empty"), timeout=2)) == []


# -------------------------------------------------------------------------------- oracle checks


def _protobuf_checkpoint_state_class():
    """CheckpointState built from a descriptor at runtime: protobuf's own text_format, without TensorFlow."""
    descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    from google.protobuf import descriptor_pool, message_factory
    fdp = descriptor_pb2.FileDescriptorProto(name="test_checkpoint_state.proto", package="tensorflow",
                                             syntax="proto3")
    message = fdp.message_type.add(name="CheckpointState")
    F = descriptor_pb2.FieldDescriptorProto
    for number, (name, kind, label) in enumerate([
            ("model_checkpoint_path", F.TYPE_STRING, F.LABEL_OPTIONAL),
            ("all_model_checkpoint_paths", F.TYPE_STRING, F.LABEL_REPEATED),
            ("all_model_checkpoint_timestamps", F.TYPE_DOUBLE, F.LABEL_REPEATED),
            ("last_preserved_timestamp", F.TYPE_DOUBLE, F.LABEL_OPTIONAL)], 1):
        message.field.add(name=name, number=number, type=kind, label=label)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.CheckpointState"))


@pytest.mark.tf
def test_differential_against_protobuf_text_format():
    text_format = pytest.importorskip("google.protobuf.text_format")
    proto_class = _protobuf_checkpoint_state_class()
    rng = random.Random(0)
    pieces = ['a', '"', "'", '\\', 'n', 'x', 'u', '0', '1', '7', 'f', 'e', ' ', '\t', '\n', '#', ':', ';', ',',
              '[', ']', '.', '-', 'é', '\x01', '😀', 'inf', 'nan', '\\x', '\\u00e9', '\\377', '\\303\\251',
              'model_checkpoint_path: "', 'all_model_checkpoint_paths: ', 'last_preserved_timestamp: ',
              'all_model_checkpoint_timestamps: ']
    agreed = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        reference = proto_class()
        try:
            text_format.Merge(text, reference)
        except text_format.ParseError:
            reference = None
        try:
            ours = CheckpointState.from_text(text)
        except ParseError:
            ours = None
        assert (reference is None) == (ours is None), text
        if ours is not None:
            agreed += 1
            assert ours.to_text() == text_format.MessageToString(reference), text
            assert ours.model_checkpoint_path == reference.model_checkpoint_path
    assert agreed > 50


@pytest.mark.tf
def test_against_tensorflow_update_and_get(tf1, tmp_path):
    from tensorflow.python.checkpoint import checkpoint_management as cm
    for save_relative in (False, True):
        ours_dir, tf_dir = tmp_path / ("ours%d" % save_relative), tmp_path / ("tf%d" % save_relative)
        ours_dir.mkdir()
        tf_dir.mkdir()
        for d, module in ((ours_dir, state), (tf_dir, cm)):
            module.update_checkpoint_state_internal(
                str(d), os.path.join(str(tmp_path), "m-3"), [os.path.join(str(tmp_path), "m-2")],
                save_relative_paths=save_relative, all_model_checkpoint_timestamps=[1.25, 1795334830.1994243],
                last_preserved_timestamp=0.1)
        assert (ours_dir / "checkpoint").read_bytes() == (tf_dir / "checkpoint").read_bytes()
        ours = state.get_checkpoint_state(str(ours_dir))
        theirs = cm.get_checkpoint_state(str(tf_dir))
        assert ours.model_checkpoint_path.replace(str(ours_dir), str(tf_dir)) == theirs.model_checkpoint_path
        assert [p.replace(str(ours_dir), str(tf_dir)) for p in ours.all_model_checkpoint_paths] == \
            list(theirs.all_model_checkpoint_paths)
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "checkpoint").write_text("hello world\n")
    assert cm.get_checkpoint_state(str(garbage)) is None and state.get_checkpoint_state(str(garbage)) is None
    shutil.rmtree(garbage)
