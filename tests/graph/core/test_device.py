"""Tests for graph/device.py: DeviceSpec, device stacks, listings; real TF as oracle."""

import contextlib

import pytest

from graph.core.device import (DeviceSpec, DeviceSpecV1, DeviceSpecV2, MergeDevice,
                          UserDeviceSpec, apply_device_stack, canonical_name, check_valid, device_listing,
                          format_device_listing, merge_device)


class FakeOp:
    """The op surface device.py relies on: name, type, device, _set_device."""

    def __init__(self, name, type="Const", device=""):
        self.name, self.type, self.device = name, type, device

    def _set_device(self, device_string):
        self.device = device_string


def place(stack, op_type="Const", name="op", initial=""):
    op = FakeOp(name, op_type, initial)
    apply_device_stack(op, [UserDeviceSpec(entry) for entry in stack])
    return op.device


# ---------------------------------------------------------------- DeviceSpec parsing and printing

@pytest.mark.parametrize("text, expected", [
    ("/cpu:0", "/device:CPU:0"),
    ("/gpu:1", "/device:GPU:1"),
    ("/device:GPU:*", "/device:GPU:*"),
    ("CPU:0", "/device:CPU:0"),
    ("/job:worker/task:1", "/job:worker/task:1"),
    ("/replica:0", "/replica:0"),
    ("/job:ps/replica:0/task:7/device:CPU:0", "/job:ps/replica:0/task:7/device:CPU:0"),
    ("/task:7/job:ps/cpu:0/replica:0", "/job:ps/replica:0/task:7/device:CPU:0"),  # any field order
    ("/device:gpu:1", "/device:GPU:1"),      # "cpu"/"gpu" upper-cased in the long form too
    ("/device:tpu:0", "/device:tpu:0"),      # ...but no other type is
    ("/tpu:0", "/device:TPU:0"),             # the short form upper-cases every known type
    ("/Cpu:0", "/device:CPU:0"),
    ("/device:Cpu:0", "/device:Cpu:0"),
    ("gpu", "/device:GPU:*"),
    ("/job:ps/gpu", "/job:ps/device:GPU:*"),
    ("/device:XLA_CPU:0", "/device:XLA_CPU:0"),  # the long form takes any type name
    ("/epu:2", "/device:EPU:2"),
    ("/custom:3", "/device:CUSTOM:3"),
    ("job:ps", "/job:ps"),
    ("//job:a//", "/job:a"),
    ("/job:a/job:b", "/job:b"),               # the last repeated field wins
    ("/task:01", "/task:1"),
    ("/task:-1", "/task:-1"),
    ("/CPU:0 ", "/device:CPU:0"),             # int() strips the trailing space
    ("/job:", "/job:"),                       # an empty job name is kept
    ("", ""),
    (None, ""),
])
def test_from_string_canonical_form(text, expected):
    assert DeviceSpec.from_string(text).to_string() == expected
    assert canonical_name(text) == expected


@pytest.mark.parametrize("text, message", [
    ("/job:a:b", "Unknown attribute 'job' is encountered while parsing the device spec: '/job:a:b'."),
    ("/xpu:0", "Unknown attribute 'xpu' is encountered while parsing the device spec: '/xpu:0'."),
    ("/device:CPU", "Unknown attribute 'device' is encountered while parsing the device spec: '/device:CPU'."),
    (" /cpu:0", "Unknown attribute ' ' is encountered while parsing the device spec: ' /cpu:0'."),
    ("/cpu:0/gpu:0", "Multiple device types are not allowed while parsing the device spec: /cpu:0/gpu:0."),
    ("/job:w/cpu:0/device:cpu:0", "Multiple device types are not allowed while parsing the device spec: "
                                  "/job:w/cpu:0/device:cpu:0."),
    ("/replica:x", "invalid literal for int() with base 10: 'x' (the replica field of device spec '/replica:x')"),
    ("/cpu:x", "invalid literal for int() with base 10: 'x' (the device index field of device spec '/cpu:x')"),
])
def test_malformed_strings_raise_value_error(text, message):
    with pytest.raises(ValueError) as info:
        DeviceSpec.from_string(text)
    assert str(info.value) == message
    with pytest.raises(ValueError):
        check_valid(text)


def test_non_string_spec_is_a_type_error():
    with pytest.raises(TypeError, match="got 5 of type int"):
        DeviceSpec.from_string(5)


def test_constructor_properties_and_conversions():
    spec = DeviceSpec(job=0, replica="1", task=2, device_type="cpu", device_index="3")
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == ("0", 1, 2, "CPU", 3)
    assert spec.to_string() == "/job:0/replica:1/task:2/device:CPU:3"
    assert DeviceSpec(device_type="tpu").to_string() == "/device:tpu:*"
    assert DeviceSpec(device_index=0).to_string() == ""  # an index without a type is not printed
    assert repr(DeviceSpec(job="ps", task=1)) == ("<DeviceSpec(job=ps, replica=None, task=1, device_type=None, "
                                                  "device_index=None)>")


def test_merge_replace_equality_hash():
    first = DeviceSpec(job="ps", device_type="CPU", device_index=0)
    second = DeviceSpec(task=3, device_type="GPU")
    merged = first.make_merged_spec(second)
    assert merged.to_string() == "/job:ps/task:3/device:GPU:0"
    assert merged == DeviceSpec.from_string("/job:ps/task:3/gpu:0")
    assert hash(merged) == hash(DeviceSpec.from_string("/job:ps/task:3/device:GPU:0"))
    assert merged != "/job:ps/task:3/device:GPU:0"
    assert first.replace(job=None, task=4).to_string() == "/task:4/device:CPU:0"
    assert first.parse_from_string("/gpu:1").to_string() == "/device:GPU:1"
    assert first.to_string() == "/job:ps/device:CPU:0"  # immutable
    with pytest.raises(AttributeError):
        first.job = "worker"
    with pytest.raises(TypeError):
        first.replace(device="GPU")


def test_device_spec_v1_is_mutable():
    spec = DeviceSpecV1(job="ps")
    assert spec.parse_from_string("/task:2/cpu:0") is spec
    assert spec.to_string() == "/task:2/device:CPU:0"  # parse replaces every field
    assert spec.merge_from(DeviceSpec(job="w", device_index=1)) is None
    assert spec.to_string() == "/job:w/task:2/device:CPU:1"
    spec.device_type = "gpu"
    assert spec.to_string() == "/job:w/task:2/device:GPU:1"
    assert hash(spec) == hash("/job:w/task:2/device:GPU:1")
    assert isinstance(spec.replace(task=None), DeviceSpecV1)
    # As TF: a V1 and a V2 spec never compare equal, whatever their strings.
    plain = DeviceSpecV2.from_string("/job:w/task:2/device:GPU:1")
    assert plain != spec and spec != plain and spec == DeviceSpecV1.from_string(plain.to_string())


def test_canonical_name_of_spec_and_none():
    assert canonical_name(None) == ""
    assert canonical_name(DeviceSpec(job="a", device_type="GPU")) == "/job:a/device:GPU:*"


# ---------------------------------------------------------------- merge_device and the device stack

def test_merge_device_op_fields_win_and_cache():
    merger = merge_device("/job:ps/task:7/cpu:0")
    assert merge_device("/job:ps/task:7/cpu:0") is merger
    assert merge_device(merger) is merger
    assert isinstance(merger, MergeDevice)
    assert merger(FakeOp("a", device="/gpu:1")).to_string() == "/job:ps/task:7/device:GPU:1"
    assert merger.shortcut_string_merge(FakeOp("a", device="/job:w")) == "/job:w/task:7/device:CPU:0"
    assert merger.shortcut_string_merge(FakeOp("a")) == "/job:ps/task:7/device:CPU:0"
    assert not merger.is_null_merge
    assert merge_device("").is_null_merge and merge_device(DeviceSpec()).is_null_merge
    with pytest.raises(ValueError, match="into op 'bad'.*'foo'"):
        merger.shortcut_string_merge(FakeOp("bad", device="foo"))


def test_merge_device_snapshots_a_v1_spec():
    spec = DeviceSpecV1(job="a")
    merger = merge_device(spec)
    spec.job = "b"
    assert merger.shortcut_string_merge(FakeOp("x")) == "/job:a"


def test_user_device_spec_attributes():
    def chooser(op):
        return "/gpu:0"

    named = UserDeviceSpec("/job:ps")
    assert (named.display_name, named.raw_string, named.is_null_merge) == ("/job:ps", "/job:ps", False)
    assert isinstance(named.function, MergeDevice)
    assert UserDeviceSpec("").is_null_merge and UserDeviceSpec(DeviceSpec()).is_null_merge
    reset = UserDeviceSpec(None)
    assert (reset.function, reset.is_null_merge, reset.display_name) == (None, False, "None")
    func = UserDeviceSpec(chooser)
    assert func.function is chooser and not func.is_null_merge and not func.fast_string_merge
    assert func.display_name == "chooser<%s, %d>" % (__file__, chooser.__code__.co_firstlineno)
    spec = UserDeviceSpec(DeviceSpec(job="a"))
    assert spec.display_name.startswith("<DeviceSpec(job=a,") and spec.fast_string_merge


@pytest.mark.parametrize("stack, expected", [
    (["/job:ps", "/task:7", "/cpu:0"], "/job:ps/task:7/device:CPU:0"),
    (["/job:ps/task:1", "/job:worker"], "/job:worker/task:1"),                  # inner field wins
    (["/gpu:0", "/job:w", "/cpu:0", "/job:ps"], "/job:ps/device:CPU:0"),
    (["/job:ps", None, "/cpu:0"], "/device:CPU:0"),                              # None stops the walk
    (["/job:ps", None], ""),
    (["/job:ps", ""], "/job:ps"),                                                # "" is skipped
    (["/job:ps", None, ""], ""),
    ([DeviceSpec(job="w", task=2), "/gpu:*"], "/job:w/task:2/device:GPU:*"),
    ([lambda op: "/gpu:0"], "/gpu:0"),                                           # kept verbatim
    (["/cpu:0", lambda op: "/gpu:0"], "/device:GPU:0"),
    ([lambda op: "/job:x/gpu:1", "/cpu:0"], "/job:x/gpu:1"),                     # a function replaces
    ([lambda op: DeviceSpec(job="a", device_type="cpu")], "/job:a/device:CPU:*"),
    ([lambda op: b"/cpu:0"], "/cpu:0"),
    ([lambda op: "foo"], "foo"),
    (["/job:a/task:1", lambda op: op.device + "/cpu:0", "/job:b"], "/job:b/task:1/device:CPU:0"),
    ([], ""),
])
def test_apply_device_stack(stack, expected):
    assert place(stack) == expected


def test_apply_device_stack_wraps_raw_entries_and_keeps_initial_device():
    op = FakeOp("a", device="/task:3")
    apply_device_stack(op, ["/job:ps", "/cpu:0"])
    assert op.device == "/job:ps/task:3/device:CPU:0"


def test_apply_device_stack_prefers_set_device_from_string():
    class VerbatimOp(FakeOp):
        def _set_device(self, device_string):
            raise AssertionError("TF's loop calls _set_device_from_string")

        def _set_device_from_string(self, device_string):
            self.device = device_string

    op = VerbatimOp("a")
    apply_device_stack(op, ["/cpu:0", lambda op: "/gpu:0"])
    assert op.device == "/device:GPU:0"


def test_device_function_returning_none_is_a_type_error():
    with pytest.raises(TypeError, match=r"^Expected binary or unicode string, got None \(.*for op 'op'\)"):
        place([lambda op: None])


def test_invalid_device_under_a_merge_scope():
    with pytest.raises(ValueError, match="Unknown attribute 'foo'"):
        place(["/job:ps", lambda op: "foo"])


# ---------------------------------------------------------------- listings

def test_device_listing_and_format():
    ops = [FakeOp("b", device="/gpu:0"), FakeOp("a", device="/device:GPU:0"), FakeOp("z"),
           FakeOp("v", device="/job:ps/task:0"), FakeOp("c")]
    listing = device_listing(ops)
    assert listing == {"": ["c", "z"], "/device:GPU:0": ["a", "b"], "/job:ps/task:0": ["v"]}
    assert list(listing) == ["", "/device:GPU:0", "/job:ps/task:0"]
    assert device_listing(ops, canonical=False) == {"": ["c", "z"], "/device:GPU:0": ["a"], "/gpu:0": ["b"],
                                                    "/job:ps/task:0": ["v"]}
    assert format_device_listing(listing) == (
        "DEVICE          OPS  NAMES\n"
        "(no device)       2  c, z\n"
        "/device:GPU:0     2  a, b\n"
        "/job:ps/task:0    1  v\n")
    assert format_device_listing(ops, max_names=1).splitlines()[1] == "(no device)       2  c, ... (+1 more)"
    with pytest.raises(ValueError, match="Op 'q' has an invalid device 'foo'"):
        device_listing([FakeOp("q", device="foo")])

    class GraphLike:
        def get_operations(self):
            return ops

    assert device_listing(GraphLike()) == listing


# ---------------------------------------------------------------- real TensorFlow as the oracle

PARSE_CASES = ["/cpu:0", "/gpu:1", "/device:GPU:*", "CPU:0", "/job:worker/task:1", "/replica:0", "/device:gpu:1",
               "/device:tpu:0", "/tpu:0", "/Cpu:0", "gpu", "/job:ps/replica:0/task:7/device:CPU:0", "", None,
               "//job:a//", "/job:a/job:b", "/task:01", "/device:XLA_CPU:0", "/job:", "job:ps", "/job:ps/gpu",
               "/CPU:0 ", "/task:-1", "/task:7/job:ps/cpu:0/replica:0",
               "/job:a:b", "/xpu:0", "/device:CPU", " /cpu:0", "/cpu:0/gpu:0", "/replica:x", "/cpu:x"]


def outcome(function, *args):
    try:
        return function(*args)
    except (ValueError, TypeError) as error:
        return type(error).__name__


@pytest.mark.tf
def test_device_spec_matches_tensorflow(tf1):
    tf_spec = tf1.DeviceSpec
    for text in PARSE_CASES:
        ours = outcome(lambda t: DeviceSpec.from_string(t).to_string(), text)
        theirs = outcome(lambda t: tf_spec.from_string(t).to_string(), text)
        assert ours == theirs, text
    for a in ["/job:ps/cpu:0", "/task:3", "/device:GPU:*", "/job:w/replica:1/task:2/gpu:2", ""]:
        for b in ["/job:ps/cpu:0", "/task:3", "/device:GPU:*", "/job:w/replica:1/task:2/gpu:2", ""]:
            ours = DeviceSpec.from_string(a).make_merged_spec(DeviceSpec.from_string(b))
            theirs = tf_spec.from_string(a).make_merged_spec(tf_spec.from_string(b))
            assert ours.to_string() == theirs.to_string(), (a, b)
            mutable, reference = DeviceSpecV1.from_string(a), tf_spec.from_string(a)
            mutable.merge_from(DeviceSpec.from_string(b))
            reference.merge_from(tf_spec.from_string(b))
            assert mutable.to_string() == reference.to_string()
    assert repr(DeviceSpec(job="ps", task=1, device_type="gpu")) == repr(tf_spec(job="ps", task=1, device_type="gpu"))
    assert DeviceSpec(job="a", task=1).replace(task=None, device_type="cpu").to_string() == \
        tf_spec(job="a", task=1).replace(task=None, device_type="cpu").to_string()


def nested_scope_cases(tf1):
    """(ours, theirs) stacks, outermost first; entries differ only for DeviceSpecs."""
    def fn_gpu(op):
        return "/gpu:0"

    def fn_append(op):
        return op.device + "/cpu:0" if op.device else "/gpu:0"

    def fn_by_type(op):
        return "/job:ps" if op.type == "Const" else "/job:worker"

    plain = [["/job:ps", "/task:7", "/cpu:0"], ["/job:ps/task:1", "/job:worker"], ["/job:ps", None, "/cpu:0"],
             ["/job:ps", None], ["/job:ps", ""], ["/job:ps", None, ""], [fn_gpu], ["/cpu:0", fn_gpu],
             ["/job:ps", fn_gpu], [fn_gpu, "/cpu:0"], [fn_gpu, "/task:3"], ["/job:a/task:1", fn_append, "/job:b"],
             [fn_by_type, "/gpu:1"], ["/device:tpu:0"], ["/job:a", "/job:"], ["/gpu:0", None, fn_append],
             [lambda op: b"/cpu:0"], [lambda op: "/job:x/gpu:1/junk"]]
    cases = [(stack, stack) for stack in plain]
    cases.append(([DeviceSpec(job="w", task=2), "/gpu:*"], [tf1.DeviceSpec(job="w", task=2), "/gpu:*"]))
    cases.append(([lambda op: DeviceSpec(job="a", device_type="cpu"), "/task:1"],
                  [lambda op: tf1.DeviceSpec(job="a", device_type="cpu"), "/task:1"]))
    cases.append(([DeviceSpec(), "/job:q"], [tf1.DeviceSpec(), "/job:q"]))
    return cases


@pytest.mark.tf
def test_nested_device_scopes_match_tensorflow(tf1):
    for index, (ours, theirs) in enumerate(nested_scope_cases(tf1)):
        with contextlib.ExitStack() as scopes:
            for entry in theirs:
                scopes.enter_context(tf1.device(entry))
            expected = tf1.constant(1.0, name=f"c{index}").op.device
        assert place(ours, "Const", f"c{index}") == expected, (index, ours)
