"""Fuzzing the readers: only graph.errors.OpError escapes, memory stays bounded, nothing hangs.

* property-based (hypothesis): raw bytes and mutations of valid seeds for every target of
  _targets.py (index, data, entry, header, V1 table, V1 header, object graph, state file);
* hostile headers, built with valid CRCs so they reach the code that trusts them: a 10^12-element
  tensor, a partitioned tensor claiming a huge full shape, a V1 tensor of 10^12 elements, absurd
  shard counts, ref dtypes, 10-byte varints; each fails before allocating (tracemalloc, and an
  address-space limit in a subprocess);
* object graphs with cycles, self-references and 10 000-deep chains finish within a time limit;
* coverage-guided (atheris, when installed): a few seconds in a subprocess through
  long_runs/fuzz_forever.py, which runs for as long as you like.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import _targets
from graph.proto.wire import encode_varint
from saver.format.coding import TensorSlice, encode_tensor_name_slice
from saver.format.proto import (BundleEntryProto, SavedSliceMeta, SavedTensorSliceMeta, SavedTensorSlices,
                         TensorShapeProto, TrackableObjectGraph, VersionDef)
from saver.format.bundle import slice_to_proto

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIME_LIMIT = 10.0          # seconds one input may take before it counts as a hang
MEMORY_SLACK = 32 << 20    # bytes any input may allocate beyond MEMORY_FACTOR * its size
MEMORY_FACTOR = 64
# A decoded object graph is Python objects (a few per proto field, ~1.7 kB per node): still linear in
# the input, with a larger constant.
MEMORY_FACTORS = {"object_graph": 256}
EXAMPLES = int(os.environ.get("SAFETY_FUZZ_EXAMPLES", "150"))
_Proto = TrackableObjectGraph.TrackableObject


class Hang(Exception):
    """An input that took longer than TIME_LIMIT."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def alarm(signum, frame):
        raise Hang("input took more than %.0f s" % seconds)
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def ws():
    logging.disable(logging.CRITICAL)
    workspace = _targets.Workspace()
    workspace.seeds = _targets.seeds(workspace)
    yield workspace
    workspace.cleanup()
    logging.disable(logging.NOTSET)


_COUNTS: dict[str, dict[str, int]] = {}


def check_input(ws, name: str, data: bytes) -> str:
    """Runs one target on one input; returns 'ok' or the allowed error's class name."""
    tracemalloc.start()
    try:
        with time_limit(TIME_LIMIT):
            _targets.TARGETS[name](ws, data)
        outcome = "ok"
    except _targets.ALLOWED as error:
        outcome = type(error).__name__
    except Hang:
        raise
    except Exception as error:  # noqa: BLE001
        raise AssertionError("target %s: %s escaped on input %s: %s"
                             % (name, type(error).__name__, data[:400].hex(), error)) from error
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak <= MEMORY_SLACK + MEMORY_FACTORS.get(name, MEMORY_FACTOR) * len(data), \
        "target %s: %d bytes allocated for a %d-byte input %s" % (name, peak, len(data), data[:200].hex())
    counts = _COUNTS.setdefault(name, {})
    counts[outcome] = counts.get(outcome, 0) + 1
    return outcome


@st.composite
def mutated(draw, seeds):
    """A valid seed with a few bytes changed, inserted, deleted, or the tail cut."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["set", "insert", "delete", "varint"]))
        position = draw(st.integers(0, len(data)))
        if kind == "set" and data:
            data[min(position, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete" and data:
            del data[position:position + draw(st.integers(1, 8))]
        elif kind == "varint":  # a huge or overlong varint where a small number was
            data[position:position] = draw(st.sampled_from(
                [b"\xff" * 9 + b"\x01", b"\xff" * 10 + b"\x01", b"\x80" * 11, encode_varint(2 ** 62)]))
    if draw(st.booleans()):
        data = data[:draw(st.integers(0, len(data)))]
    return bytes(data)


@pytest.mark.parametrize("name", sorted(_targets.TARGETS))
def test_property_fuzz(ws, name, safety_report):
    seeds = ws.seeds[name]
    inputs = st.one_of(mutated(seeds), st.binary(max_size=512))

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(inputs)
    def run(data):
        check_input(ws, name, data)

    for seed in seeds:
        check_input(ws, name, seed)
    run()
    safety_report.setdefault("fuzz_hypothesis", {})[name] = dict(_COUNTS.get(name, {}))


# ---------------------------------------------------------------------------- hostile headers


def _entry(dtype=1, shape=(2,), **fields) -> bytes:
    return BundleEntryProto(dtype=dtype, shape=TensorShapeProto.from_shape(shape), **fields).to_bytes()


def _partitioned(full_shape, part) -> dict:
    spec = TensorSlice([(0, part)] + [(0, -1)] * (len(full_shape) - 1))
    full = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape(full_shape), slices=[slice_to_proto(spec)])
    stored = BundleEntryProto(dtype=1, shape=TensorShapeProto.from_shape((part,) + tuple(full_shape[1:])),
                              size=4 * part, crc32c=0)
    return {b"x": full.to_bytes(), encode_tensor_name_slice("x", spec): stored.to_bytes()}


def _v1_meta(shape, dtype=1) -> bytes:
    meta = SavedTensorSlices(meta=SavedTensorSliceMeta(
        tensor=[SavedSliceMeta(name="x", shape=TensorShapeProto.from_shape(shape), type=dtype,
                               slice=[slice_to_proto(TensorSlice.full(len(shape)))])],
        versions=VersionDef(producer=1)))
    return meta.to_bytes()


HUGE = 10 ** 6
HOSTILE = {
    # name: (target, bytes)
    "numeric_1e12_elements": ("entry", _entry(1, (HUGE, HUGE), size=8)),
    "numeric_1e12_claiming_its_size": ("entry", _entry(1, (HUGE, HUGE), size=4 * HUGE * HUGE)),
    "string_1e12_elements": ("entry", _entry(7, (HUGE, HUGE), size=64)),
    "variant_1e12_elements": ("entry", _entry(21, (HUGE, HUGE), size=64)),
    "rank_300": ("entry", _entry(1, (1,) * 300, size=4)),
    "rank_100": ("entry", _entry(1, (1,) * 100, size=4)),
    "rank_100_string": ("entry", _entry(7, (1,) * 100, size=5)),
    "negative_dim": ("entry", _entry(1, (-5,), size=4)),
    "shard_2e9": ("entry", _entry(1, (2,), size=8, shard_id=2 ** 31 - 1)),
    "negative_offset": ("entry", _entry(1, (2,), size=8, offset=-8)),
    "offset_2e63": ("entry", _entry(1, (2,), size=8, offset=2 ** 63 - 1)),
    "ref_dtype_float": ("entry", _entry(101, (2,), size=8)),
    "ref_dtype_string": ("entry", _entry(107, (2,), size=16)),
    "unknown_dtype": ("entry", _entry(99, (2,), size=8)),
    "resource_dtype": ("entry", _entry(20, (2,), size=8)),
    "overlong_varint_size": ("entry", b"\x08\x01\x12\x04\x12\x02\x08\x02\x28" + b"\xff" * 10 + b"\x01"),
    "partitioned_1e12": ("partitioned", _partitioned((HUGE, HUGE), 1)),
    "partitioned_4e9_bytes": ("partitioned", _partitioned((1000, HUGE), 1)),
    "v1_1e12_elements": ("v1_meta", _v1_meta((HUGE, HUGE))),
    "v1_4e9_bytes": ("v1_meta", _v1_meta((1000, HUGE))),
    "v1_unknown_dtype": ("v1_meta", _v1_meta((2,), dtype=99)),
    "v1_ref_dtype": ("v1_meta", _v1_meta((2,), dtype=101)),
    "v1_negative_dim": ("v1_meta", _v1_meta((-3,))),
    "v1_rank_300": ("v1_meta", _v1_meta((1,) * 300)),
    "header_num_shards_2e9": ("header", b"\x08\xff\xff\xff\xff\x07\x1a\x02\x08\x01"),
}


def run_hostile(ws, name: str) -> str:
    target, data = HOSTILE[name]
    if target == "partitioned":
        items = dict(data)
        items[b""] = _targets._HEADER
        index = _targets.table_bytes(items)
        return check_input(ws, "index", index)
    return check_input(ws, target, data)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_header_fails_before_allocating(ws, name, safety_report):
    outcome = run_hostile(ws, name)
    safety_report.setdefault("hostile_headers", {})[name] = outcome
    if any(word in name for word in ("1e12", "4e9", "ref_dtype", "unknown", "negative", "rank")):
        assert outcome != "ok"


def test_hostile_headers_under_an_address_space_limit(tmp_path):
    """The same inputs in a process that cannot map more than 1 GiB: still only OpErrors."""
    script = r'''
import json, logging, os, resource, sys
sys.path[:0] = [%r, %r]
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
logging.disable(logging.CRITICAL)
import _targets, test_fuzz
ws = _targets.Workspace(%r)
out = {}
for name in sorted(test_fuzz.HOSTILE):
    try:
        out[name] = test_fuzz.run_hostile(ws, name)
    except BaseException as error:
        out[name] = "ESCAPED %%s: %%s" %% (type(error).__name__, str(error)[:300])
print(json.dumps(out))
''' % (HERE, ROOT, str(tmp_path))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    outcomes = json.loads(result.stdout.strip().splitlines()[-1])
    escaped = {k: v for k, v in outcomes.items() if v.startswith("ESCAPED")}
    assert not escaped, escaped


# ------------------------------------------------------------------------------ object graph hangs


def _graph_bytes(nodes) -> bytes:
    return TrackableObjectGraph(nodes=nodes).to_bytes()


def _chain(length: int) -> bytes:
    nodes = [_Proto(children=[_Proto.ObjectReference(node_id=i + 1, local_name="n")]) for i in range(length - 1)]
    nodes.append(_Proto(attributes=[_Proto.SerializedTensor(name="VARIABLE_VALUE", full_name="v",
                                                            checkpoint_key="k")]))
    return _graph_bytes(nodes)


GRAPHS = {
    "self_loop": _graph_bytes([_Proto(children=[_Proto.ObjectReference(node_id=0, local_name="me")])]),
    "two_cycle": _graph_bytes([_Proto(children=[_Proto.ObjectReference(node_id=1, local_name="a")]),
                               _Proto(children=[_Proto.ObjectReference(node_id=0, local_name="back"),
                                                _Proto.ObjectReference(node_id=1, local_name="self")])]),
    "slot_cycle": _graph_bytes([
        _Proto(children=[_Proto.ObjectReference(node_id=1, local_name="opt")],
               slot_variables=[_Proto.SlotVariableReference(original_variable_node_id=2, slot_name="m",
                                                            slot_variable_node_id=2)]),
        _Proto(slot_variables=[_Proto.SlotVariableReference(original_variable_node_id=2, slot_name="m",
                                                             slot_variable_node_id=2)]),
        _Proto(slot_variables=[_Proto.SlotVariableReference(original_variable_node_id=2, slot_name="v",
                                                            slot_variable_node_id=1)])]),
    "out_of_range_child": _graph_bytes([_Proto(children=[_Proto.ObjectReference(node_id=2 ** 31 - 1,
                                                                                local_name="x")])]),
    "negative_child": _graph_bytes([_Proto(children=[_Proto.ObjectReference(node_id=-1, local_name="x")])]),
    "chain_10000": _chain(10_000),
    "wide_20000_all_to_all": _graph_bytes(
        [_Proto(children=[_Proto.ObjectReference(node_id=j, local_name="c%d" % j) for j in range(1, 200)])]
        + [_Proto(children=[_Proto.ObjectReference(node_id=(i * 7) % 200, local_name="r")]) for i in range(1, 200)]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_object_graph_cycles_and_depth_do_not_hang(ws, name, safety_report):
    data = GRAPHS[name]
    start = time.perf_counter()
    outcome = check_input(ws, "object_graph", data)
    elapsed = time.perf_counter() - start
    safety_report.setdefault("object_graph_hostile", {})[name] = "%s in %.2fs" % (outcome, elapsed)
    if name == "chain_10000":
        from saver.storage.object_graph import ObjectGraph
        graph = ObjectGraph.from_bytes(data)
        with time_limit(TIME_LIMIT):
            assert graph.path_string(len(graph) - 1).count("/") == 10_000 - 2
            graph.tree()


# ------------------------------------------------------------------------------------- atheris


def test_atheris_coverage_guided(tmp_path, safety_report):
    pytest.importorskip("atheris")
    seconds = int(os.environ.get("SAFETY_ATHERIS_SECONDS", "6"))
    script = os.path.join(HERE, "long_runs", "fuzz_forever.py")
    result = subprocess.run([sys.executable, script, "--engine", "atheris", "--seconds", str(seconds),
                             "--workdir", str(tmp_path)], capture_output=True, text=True, timeout=seconds + 120)
    tail = (result.stdout + result.stderr)[-4000:]
    assert result.returncode == 0, tail
    report = json.loads(result.stdout.strip().splitlines()[-1])
    safety_report["fuzz_atheris"] = report
    assert report["executions"] > 0 and not report["findings"], tail


# ---------------------------------------------------------------------------- export descriptions

_JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=False),
                          st.sampled_from(["w", "s", "n", "float32", "bfloat16", "string", "int64", "float32_ref",
                                           "resource", "array", "view", "strings", "0,2", "nope"]))
_JSON = st.recursive(_JSON_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                          st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                     max_leaves=12)
_FIELD = {"dtype": st.one_of(st.sampled_from(["float32", "bfloat16", "string", "int64", "uint8", "qint8"]), _JSON),
          "shape": st.one_of(st.lists(st.integers(-2, 2 ** 40), max_size=3), _JSON),
          "stored": st.one_of(st.sampled_from(["w", "s", "n", "missing"]), _JSON),
          "encoding": st.one_of(st.sampled_from(["array", "view", "strings"]), _JSON),
          "lengths": st.one_of(st.sampled_from(["n", "w", "s"]), _JSON),
          "slices": st.one_of(st.lists(st.sampled_from(["0,2", "2,2", "-", "x"]), max_size=2), _JSON)}


@st.composite
def export_descriptions(draw):
    """Structured (mostly well-formed) JSON descriptions with hostile field values, as bytes."""
    tensors = {}
    for key in draw(st.lists(st.text(max_size=4), max_size=3, unique=True)):
        fields = draw(st.lists(st.sampled_from(sorted(_FIELD)), unique=True))
        tensors[key] = {field: draw(_FIELD[field]) for field in fields} if draw(st.integers(0, 9)) else draw(_JSON)
    document = {"format": draw(st.sampled_from([1, 1, 1, 2, "1", None])), "tensors": tensors}
    if not draw(st.integers(0, 9)):
        document = draw(_JSON)
    return json.dumps(document).encode("utf-8")


@pytest.mark.parametrize("name", ["export_npz_description", "export_safetensors_description"])
def test_export_description_fuzz(ws, name, safety_report):
    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(export_descriptions())
    def run(data):
        check_input(ws, name, data)

    run()
    safety_report.setdefault("fuzz_export_descriptions", {})[name] = dict(_COUNTS.get(name, {}))
