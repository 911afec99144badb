"""Session: runs the needed part of a Graph with numpy kernels, holding per-session variable values.

``Session.run(fetches, feed_dict)`` resolves the fetches (ops, tensors, variables, names,
nested lists/tuples/dicts/namedtuples), checks and converts the feeds, and executes a
plan: the ops reachable backwards from the fetches through data and control inputs,
stopping at fed tensors, each run once in dependency order.  Plans are cached per
(graph version, fetch identity, feed keys), so a repeated ``run`` only executes kernels.

Deadness (TensorFlow's executor semantics for ``Switch``/``Merge``): a kernel may output
``DEAD``; an op with a dead data or control input is not computed and its outputs are
dead, except ``Merge``/``RefMerge``, which forwards its live input.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import threading
from typing import Any

import numpy as np

from graph.base import errors
from graph.base import kernels
from graph.base.paused_gc import PausedGC
from graph.core import default_session
from graph.core import graph as graph_lib
from graph.core.graph import Operation, Tensor

__all__ = [
    "Session", "InteractiveSession", "ConfigProto", "GPUOptions", "GraphOptions", "RunOptions", "RunMetadata",
    "DEAD",
]

_LOCAL_DEVICE_PREFIX = "/job:localhost/replica:0/task:0/device:"
_CPU_MEMORY_LIMIT = 268435456  # what TF's list_devices reports for a CPU device
_PLAN_CACHE_LIMIT = 512
_MERGE_TYPES = frozenset(("Merge", "RefMerge"))
_DEADNESS_SOURCES = frozenset(("Switch", "RefSwitch"))


class _Dead:
    """The value of a tensor on an untaken branch of a Switch."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "DEAD"


DEAD = _Dead()


# ----------------------------------------------------------------- configuration messages
class _Message:
    """A settable bag of fields standing in for one of TensorFlow's config protobufs."""

    _FIELDS: dict[str, Any] = {}

    def __init__(self, **kwargs):
        for field, default in self._FIELDS.items():
            setattr(self, field, dict(default) if isinstance(default, dict) else default)
        for field, value in kwargs.items():
            if field not in self._FIELDS:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{field}" field.')
            setattr(self, field, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._FIELDS if getattr(self, k) != self._FIELDS[k])
        return f"{type(self).__name__}({fields})"


class GPUOptions(_Message):
    """tf.GPUOptions (accepted; there are no GPUs here)."""

    _FIELDS = {"per_process_gpu_memory_fraction": 0.0, "allow_growth": False, "allocator_type": "",
               "visible_device_list": "", "force_gpu_compatible": False, "deferred_deletion_bytes": 0,
               "polling_active_delay_usecs": 0, "polling_inactive_delay_msecs": 0, "experimental": None}


class GraphOptions(_Message):
    """tf.GraphOptions (accepted, no effect)."""

    _FIELDS = {"optimizer_options": None, "build_cost_model": 0, "infer_shapes": False, "place_pruned_graph": False,
               "enable_bfloat16_sendrecv": False, "timeline_step": 0, "rewrite_options": None,
               "enable_recv_scheduling": False, "build_cost_model_after": 0}


class ConfigProto(_Message):
    """tf.ConfigProto: ``device_count`` declares the CPU devices; ``log_device_placement`` prints placements."""

    _FIELDS = {"device_count": {}, "log_device_placement": False, "allow_soft_placement": False,
               "intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
               "use_per_session_threads": False, "session_inter_op_thread_pool": None,
               "placement_period": 0, "device_filters": None, "gpu_options": None, "graph_options": None,
               "operation_timeout_in_ms": 0, "rpc_options": None, "cluster_def": None,
               "isolate_session_state": False, "share_cluster_devices_in_session": False,
               "experimental": None}


class RunOptions(_Message):
    """tf.RunOptions (accepted; tracing is not emulated)."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3
    _FIELDS = {"trace_level": 0, "timeout_in_ms": 0, "inter_op_thread_pool": 0,
               "output_partition_graphs": False, "debug_options": None,
               "report_tensor_allocations_upon_oom": False, "experimental": None}


class RunMetadata(_Message):
    """tf.RunMetadata (left empty)."""

    _FIELDS = {"step_stats": None, "cost_graph": None, "partition_graphs": None, "function_graphs": None}


class _DeviceAttributes:
    """One entry of ``Session.list_devices()``."""

    __slots__ = ("name", "device_type", "memory_limit_bytes", "incarnation")

    def __init__(self, name: str, device_type: str, memory_limit_bytes: int, incarnation: int):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self) -> str:
        return (f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, "
                f"{self.incarnation})")


def _tensor_str(tensor: Tensor) -> str:
    return f'Tensor("{tensor.name}", shape={tensor.shape}, dtype={tensor.dtype.name})'


def _element_str(element) -> str:
    if isinstance(element, Tensor):
        return _tensor_str(element)
    return str(element)


# ----------------------------------------------------------------- fetch structures
def _fetch_key(fetches):
    """A hashable key identifying a fetch structure by element identity (strings by value)."""
    kind = type(fetches)
    if kind is Tensor or kind is Operation:
        return id(fetches)
    if kind is str:
        return fetches
    if kind is list:
        return ("l",) + tuple(_fetch_key(item) for item in fetches)
    if isinstance(fetches, tuple):
        return (kind,) + tuple(_fetch_key(item) for item in fetches)
    if isinstance(fetches, dict):
        return (kind,) + tuple((key, _fetch_key(value)) for key, value in fetches.items())
    return id(fetches)


class _Fetcher:
    """Flattens a fetch structure into unique graph elements and rebuilds results in its shape."""

    def __init__(self, graph, fetches):
        self.elements: list = []  # unique Tensors and Operations, in first-seen order
        self._index: dict[int, int] = {}
        self.build = self._compile(graph, fetches)

    def _add(self, element) -> int:
        position = self._index.get(id(element))
        if position is None:
            position = self._index[id(element)] = len(self.elements)
            self.elements.append(element)
        return position

    def _compile(self, graph, fetches):
        if fetches is None:
            raise TypeError(f'Argument `fetch` = {fetches} has invalid type "{type(fetches).__name__}". Cannot be None')
        if isinstance(fetches, list):
            parts = [self._compile(graph, item) for item in fetches]
            return lambda values: [part(values) for part in parts]
        if isinstance(fetches, tuple):
            parts = [self._compile(graph, item) for item in fetches]
            if hasattr(fetches, "_fields"):  # namedtuple
                kind = type(fetches)
                return lambda values: kind(*[part(values) for part in parts])
            kind = type(fetches)
            if kind is tuple:
                return lambda values: tuple([part(values) for part in parts])
            return lambda values: kind([part(values) for part in parts])
        if isinstance(fetches, (dict, collections.abc.Mapping)):
            keys = list(fetches.keys())
            parts = [self._compile(graph, fetches[key]) for key in keys]
            kind = type(fetches)

            def build_mapping(values):
                result = kind() if kind is not collections.defaultdict else collections.defaultdict(
                    fetches.default_factory)
                for key, part in zip(keys, parts):
                    result[key] = part(values)
                return result
            return build_mapping
        try:
            element = graph.as_graph_element(fetches, allow_tensor=True, allow_operation=True)
        except TypeError as error:
            raise TypeError(f'Argument `fetch` = {_element_str(fetches)} has invalid type "{type(fetches).__name__}" '
                            f"must be a string or Tensor. ({error})") from None
        except (ValueError, KeyError) as error:
            raise ValueError(f"Argument `fetch` = {_element_str(fetches)} cannot be interpreted as a Tensor. "
                             f"({error})") from None
        if not graph.is_fetchable(element):
            name = element.op.name if isinstance(element, Tensor) else element.name
            raise ValueError(f"Operation {name!r} has been marked as not fetchable. Typically this happens when it "
                             "is defined in another function or code block. Use return values, explicit Python "
                             "locals or TensorFlow collections to access it.")
        position = self._add(element)
        if isinstance(element, Operation):
            return lambda values: None
        return lambda values: values[position]


# ----------------------------------------------------------------- execution plans
class _Context:
    """What a kernel sees of its session: ``variables``, ``op_state`` and ``session``."""

    __slots__ = ("variables", "op_state", "session")

    def __init__(self, session):
        self.variables: dict = {}
        self.op_state: dict = {}
        self.session = session


class _Plan:
    """A cached, ready-to-execute schedule for one (fetches, feed keys) combination."""

    __slots__ = ("fetcher", "steps", "num_slots", "feeds", "fetch_slots", "deadness", "anchors")


def _build_plan(graph, fetches, feed_dict) -> _Plan:
    fetcher = _Fetcher(graph, fetches)
    feeds = []  # (tensor, slot)
    fed: dict[int, int] = {}
    slot = 0
    for key, value in (feed_dict or {}).items():
        try:
            tensor = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except Exception as error:  # TF reports any resolution failure as TypeError
            message = error.args[0] if error.args else str(error)
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {message}") from None
        if not graph.is_feedable(tensor):
            raise ValueError(f"Tensor {_tensor_str(tensor)} may not be fed.")
        if id(tensor) in fed:
            feeds.append((tensor, fed[id(tensor)]))
            continue
        fed[id(tensor)] = slot
        feeds.append((tensor, slot))
        slot += 1

    # Ops needed: backwards from the fetches through data and control inputs, stopping at fed tensors.
    roots = []
    for element in fetcher.elements:
        if isinstance(element, Tensor):
            if id(element) not in fed:
                roots.append(element.op)
        else:
            roots.append(element)
    order: list[Operation] = []
    state: dict[int, int] = {}  # id(op) -> 1 visiting, 2 done
    for root in roots:
        if id(root) in state:
            continue
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                if state[id(op)] != 2:
                    state[id(op)] = 2
                    order.append(op)
                continue
            if id(op) in state:
                continue  # done, or already scheduled for expansion on this path
            state[id(op)] = 1
            stack.append((op, True))
            for control in reversed(op._control_inputs):
                if id(control) not in state:
                    stack.append((control, False))
            for tensor in reversed(op._inputs):
                if id(tensor._op) not in state and (not fed or id(tensor) not in fed):
                    stack.append((tensor._op, False))
    registry = kernels._REGISTRY
    missing: dict[str, list[str]] = {}
    for op in order:
        kernel = registry.get(op._type)
        if kernel is None or kernel.compute is None:
            missing.setdefault(op._type, []).append(op._name)
    if missing:
        listing = "; ".join(f"{op_type} (e.g. '{names[0]}')" for op_type, names in sorted(missing.items()))
        first = missing[sorted(missing)[0]][0]
        raise errors.UnimplementedError(
            None, graph._get_operation_or_none(first),
            f"No kernel registered in this emulator for op type(s) needed by this run: {listing}. "
            "Register one with graph.base.kernels.register, or fetch a subgraph without them.")

    tensor_slot: dict[int, int] = dict(fed)
    op_index: dict[int, int] = {}
    steps = []
    deadness = False
    for position, op in enumerate(order):
        op_index[id(op)] = position
        op_type = op._type
        kernel = registry[op_type]
        out0 = slot
        for tensor in op._outputs:
            if not fed or id(tensor) not in fed:
                tensor_slot[id(tensor)] = slot
            slot += 1
        inputs = op._inputs
        if inputs:
            in_slots = tuple([tensor_slot[id(t)] for t in inputs])
            ref_inputs = kernel.ref_inputs
            derefs = tuple([i for i, t in enumerate(inputs)
                            if t._dtype._is_ref_dtype and id(t) not in fed and i not in ref_inputs])
        else:
            in_slots = derefs = ()
        controls = tuple([op_index[id(c)] for c in op._control_inputs]) if op._control_inputs else ()
        if op_type in _DEADNESS_SOURCES:
            deadness = True
        steps.append((op, kernel.compute, in_slots, derefs, out0, len(op._outputs), controls,
                      op_type in _MERGE_TYPES))
    plan = _Plan()
    plan.fetcher = fetcher
    plan.steps = steps
    plan.num_slots = slot
    plan.feeds = feeds
    plan.fetch_slots = [(tensor_slot[id(e)], e) if isinstance(e, Tensor) else (None, e) for e in fetcher.elements]
    plan.deadness = deadness
    plan.anchors = (fetches, list((feed_dict or {}).keys()))  # keep keyed objects alive: ids stay unique
    return plan


def _convert_feed(tensor: Tensor, key, value):
    """The feed ``value`` as an ndarray of the tensor's dtype, shape-checked (TF's messages)."""
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python "
                        "scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor object "
                        f"was {_tensor_str(value)} which was passed to the argument `feed_dict` with key "
                        f"{_element_str(key)}.")
    dtype = tensor._dtype
    numpy_dtype = dtype.numpy_dtype
    if isinstance(value, int) and not isinstance(value, bool) and dtype.is_integer:
        if not dtype.min <= value <= dtype.max:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not compatible with Tensor type "
                            f"{dtype.as_numpy_dtype}. Try explicitly setting the type of the feed tensor to a larger "
                            "type (e.g. int64).")
    if numpy_dtype.kind == "O":
        array = np.asarray(value, dtype=object)
        if array.size and any(isinstance(item, str) for item in array.reshape(-1)):
            array = np.vectorize(lambda s: s.encode("utf-8") if isinstance(s, str) else s, otypes=[object])(array)
    else:
        try:
            array = np.asarray(value, dtype=numpy_dtype)
        except (TypeError, ValueError) as error:
            raise ValueError(f"Cannot feed value {value!r} for Tensor {tensor.name} of dtype {dtype.name}: "
                             f"{error}") from error
    shape = tensor._shape
    dims = shape._dims
    if dims is not None:
        actual = array.shape
        if len(actual) != len(dims) or any(d._value is not None and d._value != a for d, a in zip(dims, actual)):
            raise ValueError(f"Cannot feed value of shape {actual} for Tensor {tensor.name}, which has shape {shape}")
    return array


def _fetch_value(value, tensor: Tensor, index: int):
    if type(value) is kernels.VariableRef:
        value = value.get()
    elif value is DEAD:
        raise errors.InvalidArgumentError(None, tensor.op, f"Retval[{index}] does not have value")
    numpy_dtype = tensor._dtype.numpy_dtype
    if type(value) is np.ndarray:
        if value.dtype != numpy_dtype:
            value = value.astype(numpy_dtype)
        return value[()] if value.ndim == 0 else value.copy()
    value = np.asarray(value, dtype=numpy_dtype)
    return value[()] if value.ndim == 0 else value


# ----------------------------------------------------------------- Session
# What a kernel may raise: TF's own errors, and numpy's for bad values (reported as InvalidArgumentError).
_KERNEL_ERRORS = (errors.OpError, ValueError, TypeError, IndexError, ArithmeticError)


def _reraise_with_op(op, error: Exception):
    """Re-raises a kernel's ``error`` naming ``op``: OpErrors gain the op, numpy errors become
    InvalidArgumentError."""
    if isinstance(error, errors.OpError):
        if error._op is None:
            error._op = op
        raise error
    raise errors.InvalidArgumentError(None, op, f"{op.type} '{op.name}': {error}") from error


class BaseSession:
    """Runs graph elements with per-session variable values (TensorFlow's tf.Session semantics)."""

    def __init__(self, target: str = "", graph=None, config=None):
        if graph is None:
            graph = graph_lib.get_default_graph()
        elif not isinstance(graph, graph_lib.Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        if config is not None and not isinstance(config, ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config)}")
        self._graph = graph
        self._target = target if isinstance(target, str) else target.decode()
        self._config = config
        self._closed = False
        self._context = _Context(self)
        self._plans: dict = {}
        self._plans_version = -1
        self._placed: set[str] = set()
        self._default_graph_context = None
        self._default_session_context = None
        self._lock = threading.RLock()

    # ------------------------------------------------------------- properties
    @property
    def graph(self):
        """The graph this session runs."""
        return self._graph

    @property
    def graph_def(self):
        """The graph as a GraphDef message."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        """The target string."""
        return self._target

    def list_devices(self) -> list:
        """The devices of this session: CPU:0..n-1 from ``ConfigProto.device_count['CPU']`` (default 1)."""
        count = 1
        if self._config is not None and self._config.device_count:
            count = int(self._config.device_count.get("CPU", 1))
        return [_DeviceAttributes(f"{_LOCAL_DEVICE_PREFIX}CPU:{index}", "CPU", _CPU_MEMORY_LIMIT,
                                  (0x5EED5EED + index * 2654435761) % 2**63) for index in range(max(count, 1))]

    # ------------------------------------------------------------- lifecycle
    def close(self) -> None:
        """Closes the session, freeing its variable values."""
        self._closed = True
        self._context.variables.clear()
        self._context.op_state.clear()
        self._plans.clear()

    def as_default(self):
        """A context manager making this session the default session."""
        return self._as_default()

    @contextlib.contextmanager
    def _as_default(self):
        default_session.push_default_session(self)
        try:
            yield self
        finally:
            default_session.pop_default_session(self)

    def __enter__(self):
        if self._default_graph_context is None:
            self._default_graph_context = self._graph.as_default()
            self._default_graph_context.__enter__()
            self._default_session_context = self.as_default()
            self._default_session_context.__enter__()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._default_session_context is not None:
            self._default_session_context.__exit__(exc_type, exc_value, traceback)
            self._default_graph_context.__exit__(exc_type, exc_value, traceback)
            self._default_session_context = None
            self._default_graph_context = None
        self.close()

    # ------------------------------------------------------------- run
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Computes ``fetches`` (ops, tensors, variables, names or nested structures of them) given ``feed_dict``.

        Returns:
            The values in the structure of ``fetches``: numpy arrays (numpy scalars for rank 0, bytes for
            string scalars), None for ops.
        Raises:
            RuntimeError: if the session is closed.
            TypeError, ValueError: for bad fetches or feeds (TensorFlow's messages).
            OpError subclasses: from kernels, carrying the failing op.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        with PausedGC():
            return self._run(fetches, feed_dict)

    def _run(self, fetches, feed_dict):
        graph = self._graph
        if graph._version != self._plans_version:
            self._plans.clear()
            self._plans_version = graph._version
        key = (_fetch_key(fetches), tuple(k if type(k) is str else id(k) for k in feed_dict) if feed_dict else ())
        plan = self._plans.get(key)
        if plan is None:
            plan = _build_plan(graph, fetches, feed_dict)
            if len(self._plans) >= _PLAN_CACHE_LIMIT:
                self._plans.clear()
            self._plans[key] = plan
            if self._config is not None and self._config.log_device_placement:
                self._log_placement()
        values = [None] * plan.num_slots
        if feed_dict:
            for (tensor, slot), (key_object, value) in zip(plan.feeds, feed_dict.items()):
                values[slot] = _convert_feed(tensor, key_object, value)
        if plan.deadness:
            self._execute_with_deadness(plan, values)
        else:
            self._execute(plan, values)
        results = []
        for index, (slot, element) in enumerate(plan.fetch_slots):
            results.append(None if slot is None else _fetch_value(values[slot], element, index))
        return plan.fetcher.build(results)

    def _execute(self, plan, values) -> None:
        context = self._context
        op = None
        try:
            for op, compute, in_slots, derefs, out0, num_outputs, _, _ in plan.steps:
                if in_slots:
                    args = [values[i] for i in in_slots]
                    for i in derefs:
                        args[i] = args[i].get()
                else:
                    args = []
                result = compute(context, op, args)
                if num_outputs == 1:
                    values[out0] = result[0] if type(result) is list or type(result) is tuple else result
                elif num_outputs:
                    values[out0:out0 + num_outputs] = result
        except _KERNEL_ERRORS as error:
            _reraise_with_op(op, error)

    def _execute_with_deadness(self, plan, values) -> None:
        context = self._context
        dead_ops = [False] * len(plan.steps)
        op = None
        try:
            for position, (op, compute, in_slots, derefs, out0, num_outputs, controls, is_merge) in \
                    enumerate(plan.steps):
                args = [values[i] for i in in_slots]
                if is_merge:  # the Merge kernel forwards its first live input
                    if all(value is DEAD for value in args):
                        dead_ops[position] = True
                        values[out0:out0 + num_outputs] = [DEAD] * num_outputs
                        continue
                elif any(value is DEAD for value in args) or any(dead_ops[c] for c in controls):
                    dead_ops[position] = True
                    values[out0:out0 + num_outputs] = [DEAD] * num_outputs
                    continue
                for i in derefs:
                    if args[i] is not DEAD:
                        args[i] = args[i].get()
                result = compute(context, op, args)
                if num_outputs == 1:
                    values[out0] = result[0] if type(result) is list or type(result) is tuple else result
                elif num_outputs:
                    values[out0:out0 + num_outputs] = result
        except _KERNEL_ERRORS as error:
            _reraise_with_op(op, error)

    def _log_placement(self) -> None:
        """Prints 'name: (Type): device' for ops not yet placed, as TF's placer does (to stdout)."""
        from graph.core import device as device_lib
        default = device_lib.DeviceSpecV2.from_string(_LOCAL_DEVICE_PREFIX + "CPU:0")
        lines = []
        for op in self._graph.get_operations():
            if op.name in self._placed:
                continue
            self._placed.add(op.name)
            device = default
            if op.device:
                device = default.make_merged_spec(device_lib.DeviceSpecV2.from_string(op.device))
            lines.append(f"{op.name}: ({op.type}): {device.to_string()}")
        if lines:
            sys.stdout.write("\n".join(lines) + "\n")
            sys.stdout.flush()

    def partial_run_setup(self, fetches, feeds=None):
        raise NotImplementedError("partial_run is not supported by this emulator.")


class Session(BaseSession):
    """tf.Session: ``Session(target='', graph=None, config=None)``; a context manager that closes on exit."""


class InteractiveSession(BaseSession):
    """A Session that installs itself (and its graph) as the default on construction, for shells."""

    def __init__(self, target: str = "", graph=None, config=None):
        super().__init__(target, graph, config)
        self._interactive_session = self.as_default()
        self._interactive_session.__enter__()
        self._interactive_graph = self._graph.as_default()
        self._interactive_graph.__enter__()

    def close(self) -> None:
        """Closes the session and removes it (and its graph) from the default stacks."""
        if not self._closed and self._interactive_session is not None:
            self._interactive_graph.__exit__(None, None, None)
            self._interactive_session.__exit__(None, None, None)
            self._interactive_session = None
        super().close()
