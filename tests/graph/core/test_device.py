"""Tests for graph/device.py: DeviceSpec, device stacks, replica_device_setter, listings; real TF as oracle."""

import contextlib
import logging

import pytest

from graph.core import device
from graph.core.device import (ClusterSpec, DeviceSpec, DeviceSpecV1, DeviceSpecV2, MergeDevice, STANDARD_PS_OPS,
                          UserDeviceSpec, apply_device_stack, canonical_name, check_valid, device_listing,
                          format_device_listing, merge_device, replica_device_setter)


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


# ---------------------------------------------------------------- ClusterSpec and replica_device_setter

def test_cluster_spec():
    cluster = ClusterSpec({"worker": ["w0:1", "w1:1"], "ps": {0: "p0:1", "3": "p3:1"}, "empty": []})
    assert cluster.jobs == ["worker", "ps", "empty"]
    assert cluster.num_tasks("ps") == 2 and cluster.task_indices("ps") == [0, 3]
    assert cluster.as_dict() == {"worker": ["w0:1", "w1:1"], "ps": {0: "p0:1", 3: "p3:1"}, "empty": {}}
    assert cluster.job_tasks("ps") == ["p0:1", None, None, "p3:1"]
    assert ClusterSpec(cluster).jobs == ["empty", "ps", "worker"]
    assert ClusterSpec(cluster) == cluster and bool(cluster) and not ClusterSpec({})
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        cluster.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 1 in job 'ps'"):
        cluster.task_address("ps", 1)
    with pytest.raises(TypeError, match="must be a list or a dictionary"):
        ClusterSpec({"ps": "p0:1"})
    with pytest.raises(TypeError, match="must be a dictionary mapping"):
        ClusterSpec(["ps"])


def test_standard_ps_ops():
    assert len(STANDARD_PS_OPS) == 14
    assert {"Variable", "VariableV2", "VarHandleOp", "MutableHashTableV2", "DecisionTreeResource"} <= set(
        STANDARD_PS_OPS)


def test_replica_device_setter_round_robin():
    setter = replica_device_setter(ps_tasks=3)
    types = ["VariableV2", "Const", "VariableV2", "Identity", "VarHandleOp", "VariableV2", "Assign"]
    placed = [setter(FakeOp(f"op{i}", t)) for i, t in enumerate(types)]
    assert placed == ["/job:ps/task:0", "/job:worker", "/job:ps/task:1", "/job:worker", "/job:ps/task:2",
                      "/job:ps/task:0", "/job:worker"]


def test_replica_device_setter_merges_with_op_device():
    setter = replica_device_setter(ps_tasks=2, worker_device="/job:worker/task:4/cpu:0")
    assert setter(FakeOp("a", "Const", "/gpu:1")) == "/job:worker/task:4/device:GPU:1"
    # An op already on ps task 5: the strategy still advances (0 is consumed), the op's task wins.
    assert setter(FakeOp("v", "VariableV2", "/job:ps/task:5")) == "/job:ps/task:5"
    assert setter(FakeOp("w", "VariableV2")) == "/job:ps/task:1"
    # Another job: no task is chosen, the ps job is overridden by the op's.
    assert setter(FakeOp("x", "VariableV2", "/job:other")) == "/job:other"
    assert setter(FakeOp("y", "VariableV2", "/cpu:0")) == "/job:ps/task:0/device:CPU:0"


def test_replica_device_setter_options(caplog):
    assert replica_device_setter() is None
    assert replica_device_setter(cluster={"worker": ["w:1"]}) is None
    assert place(["/job:a", replica_device_setter(ps_tasks=0)]) == ""   # device(None): a stack reset
    with caplog.at_level(logging.WARNING, logger=device.__name__):
        keep = replica_device_setter(ps_tasks=2, merge_devices=False)
    assert "merge_devices=true" in caplog.text
    assert keep(FakeOp("a", "VariableV2", "/gpu:0")) == "/gpu:0"
    assert keep(FakeOp("b", "VariableV2")) == "/job:ps/task:0"
    cluster = replica_device_setter(cluster={"ps": ["p0", "p1"], "worker": ["w0"]})
    assert [cluster(FakeOp(n, "VariableV2")) for n in "abc"] == ["/job:ps/task:0", "/job:ps/task:1",
                                                                 "/job:ps/task:0"]
    custom = replica_device_setter(ps_tasks=4, ps_ops=["Const"], ps_strategy=lambda op: 3,
                                   ps_device="/job:ps/device:GPU:0", worker_device="")
    assert custom(FakeOp("c", "Const")) == "/job:ps/task:3/device:GPU:0"
    assert custom(FakeOp("v", "VariableV2")) == ""
    assert replica_device_setter(ps_tasks=2, ps_device="")(FakeOp("v", "VariableV2")) == "/job:worker"
    jobless = replica_device_setter(ps_tasks=2, ps_device="/cpu:0")
    assert jobless(FakeOp("v", "VariableV2")) == "/device:CPU:0"        # no ps job: no task chosen
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_replica_device_setter_reads_node_def_op():
    class NodeDefLike:
        op, device, name = "VariableV2", "", "n"

    assert replica_device_setter(ps_tasks=1)(NodeDefLike()) == "/job:ps/task:0"


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


def run_setter_program(mode, tf1, make_setter):
    """Builds one op sequence under replica_device_setter scopes, in TF or in emulation; returns name -> device.

    Ops that TF colocates with a variable (its Assign / read, an Assign on a ref) take no part in device
    functions and are left out of the emulation.
    """
    stack, placed = [], {}

    @contextlib.contextmanager
    def scope(entry):
        if mode == "tf":
            with tf1.device(entry):
                yield
        else:
            stack.append(entry)
            yield
            stack.pop()

    def make(kind, name):
        if mode == "tf":
            if kind == "Variable":
                tf1.Variable(1.0, name=name)
            elif kind == "Const":
                tf1.constant(1.0, name=name)
            elif kind == "Identity":
                tf1.identity(tf1.constant(1.0, name=name + "_in"), name=name)
            elif kind == "VarHandleOp":
                tf1.raw_ops.VarHandleOp(dtype=tf1.float32, shape=[], name=name)
            elif kind == "MutableHashTableV2":
                tf1.raw_ops.MutableHashTableV2(key_dtype=tf1.string, value_dtype=tf1.int64, name=name)
            elif kind == "AssignVariableOp":
                handle = tf1.raw_ops.VarHandleOp(dtype=tf1.float32, shape=[], name=name + "_h")
                tf1.raw_ops.AssignVariableOp(resource=handle, value=tf1.constant(1.0, name=name + "_v"),
                                             name=name)
            return
        ops = {"Variable": [(name + "/initial_value", "Const"), (name, "VariableV2")],
               "Identity": [(name + "_in", "Const"), (name, "Identity")],
               "AssignVariableOp": [(name + "_h", "VarHandleOp"), (name + "_v", "Const"),
                                    (name, "AssignVariableOp")]}.get(kind, [(name, kind)])
        for op_name, op_type in ops:
            op = FakeOp(op_name, op_type)
            apply_device_stack(op, stack)
            placed[op_name] = op.device

    setter = make_setter()
    with scope(setter):
        make("Variable", "v0")
        make("Const", "c0")
        make("Variable", "v1")
        make("VarHandleOp", "h0")
        make("Identity", "i0")
        with scope("/job:ps/task:5"):
            make("Variable", "v2")
        with scope("/cpu:0"):
            make("Variable", "v3")
            make("Const", "c1")
        with scope("/job:other/gpu:1"):
            make("Variable", "v4")
        make("MutableHashTableV2", "t0")
        make("AssignVariableOp", "a0")
        with scope(None):
            make("Variable", "v5")
        make("Variable", "v6")
    with scope("/job:worker/task:3"), scope(setter):
        make("Variable", "v7")
        make("Const", "c2")
    if mode == "tf":
        return {op.name: op.device for op in tf1.get_default_graph().get_operations()}
    return placed


SETTER_CONFIGS = [
    dict(ps_tasks=3),
    dict(ps_tasks=2, worker_device="/job:worker/task:1/cpu:0", ps_device="/job:ps/device:CPU:0"),
    dict(ps_tasks=2, merge_devices=False),
    dict(cluster={"ps": ["p0:1", "p1:1"], "worker": ["w0:1"]}),
    dict(ps_tasks=2, ps_ops=["Const", "VariableV2"]),
    dict(ps_tasks=2, ps_device=""),
]


@pytest.mark.tf
def test_replica_device_setter_matches_tensorflow(tf1):
    for config in SETTER_CONFIGS:
        with tf1.Graph().as_default():
            theirs = run_setter_program("tf", tf1, lambda: tf1.train.replica_device_setter(**config))
        ours = run_setter_program("ours", tf1, lambda: replica_device_setter(**config))
        assert ours == {name: theirs[name] for name in ours}, config
        assert len(ours) == 26
