"""Partial restores: load whatever matches from a checkpoint into a session and report the rest.

Beyond TensorFlow, whose ``Saver.restore`` stops at the first missing key or wrong shape:
``restore_matching(sess, checkpoint, var_list, rename, strict)`` resolves every variable to a
checkpoint key, reads what fits straight into the session's variable store, and returns a
``RestoreReport`` (restored, missing, unused keys, shape and dtype mismatches, skipped).

How a variable finds its key::

    name      = the Saver name: var.op.name, the partitioned full_name, or the var_list dict key
    candidate = rename(name)        dict / scope prefix / (regex, replacement) / callable / list of them
    key       = candidate                                   if the checkpoint holds it, else
                object graph full_name -> checkpoint_key    (TF2 object-based checkpoints), else
                candidate + "/.ATTRIBUTES/VARIABLE_VALUE"   (a TF2 object path such as "net/l1/kernel")

A part of a partitioned variable is read as its slice (``_save_slice_info``) of the stored tensor,
whatever partitioning the checkpoint used.  Values are read into a fresh array that becomes the
variable's value; no other copy of the model is made.
"""

from __future__ import annotations

import collections
import logging
import re
from typing import Any, NamedTuple
from collections.abc import Callable, Mapping

import numpy as np

from graph.base import dtypes as dtypes_lib
from graph import errors
from graph.base import kernels
from graph.core.graph import GraphKeys
from graph.variables import variables
from saver.format.coding import TensorSlice
from saver.storage import object_graph
from saver.storage.reader import load_checkpoint

__all__ = ["restore_matching", "RestoreReport", "Restored", "Missing", "ShapeMismatch", "DtypeMismatch",
           "Skipped", "compile_rename", "IncompleteRestoreError"]

_logger = logging.getLogger("graph")

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"      # trackable/base.py OBJECT_GRAPH_PROTO_KEY
VARIABLE_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"  # a TF2 variable's attribute key
_LIST_LIMIT = 20                                       # items per section in summary()


# ------------------------------------------------------------------------------------ the report
class Restored(NamedTuple):
    """A variable (or one part of a partitioned variable) and the checkpoint key it was read from."""
    var: Any
    key: str


class Missing(NamedTuple):
    """A variable whose key is not in the checkpoint (``key`` is the key looked for)."""
    var: Any
    key: str


class ShapeMismatch(NamedTuple):
    """A variable whose shape (full shape for a partition) differs from the stored tensor's."""
    var: Any
    key: str
    var_shape: tuple
    checkpoint_shape: tuple


class DtypeMismatch(NamedTuple):
    """A variable whose dtype differs from the stored tensor's."""
    var: Any
    key: str
    var_dtype: dtypes_lib.DType
    checkpoint_dtype: dtypes_lib.DType


class Skipped(NamedTuple):
    """A variable the rename rule excluded (it returned None)."""
    var: Any
    name: str


def _var_name(var) -> str:
    op = getattr(var, "op", None)
    return op.name if op is not None else str(var)


def _shape_text(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class IncompleteRestoreError(errors.NotFoundError):
    """Raised by ``RestoreReport.raise_if_incomplete`` (and ``strict=True``); ``.report`` has the details."""

    def __init__(self, report: RestoreReport):
        super().__init__(None, None, report.summary())
        self.report = report


class RestoreReport:
    """What ``restore_matching`` did: restored, missing, unused, shape/dtype mismatches, skipped."""

    def __init__(self, checkpoint: str, num_keys: int):
        self.checkpoint = checkpoint
        self.num_keys = num_keys
        self.restored: list[Restored] = []
        self.missing: list[Missing] = []
        self.unused: list[str] = []
        self.shape_mismatches: list[ShapeMismatch] = []
        self.dtype_mismatches: list[DtypeMismatch] = []
        self.skipped: list[Skipped] = []

    @property
    def complete(self) -> bool:
        """True when every requested variable was restored (unused checkpoint keys are fine)."""
        return not (self.missing or self.shape_mismatches or self.dtype_mismatches)

    @property
    def restored_variables(self) -> list:
        """The restored variables (parts of partitioned variables individually)."""
        return [item.var for item in self.restored]

    def raise_if_incomplete(self, allow_unused: bool = True) -> RestoreReport:
        """Returns self if complete, else raises IncompleteRestoreError (a NotFoundError) with summary().

        Args:
            allow_unused: if False, unused checkpoint keys also count as incomplete.
        """
        if not self.complete or (not allow_unused and self.unused):
            raise IncompleteRestoreError(self)
        return self

    def summary(self, limit: int = _LIST_LIMIT) -> str:
        """A readable multi-line account, at most ``limit`` lines per section."""
        requested = len(self.restored) + len(self.missing) + len(self.shape_mismatches) + len(self.dtype_mismatches)
        lines = [f"Restored {len(self.restored)} of {requested} variables from {self.checkpoint} "
                 f"({self.num_keys} tensors in the checkpoint, {len(self.unused)} unused)."]

        def section(title: str, items: list, render: Callable) -> None:
            if not items:
                return
            lines.append(f"{title} ({len(items)}):")
            lines.extend("  " + render(item) for item in items[:limit])
            if len(items) > limit:
                lines.append(f"  ... and {len(items) - limit} more")

        section("Missing from the checkpoint", self.missing,
                lambda m: _var_name(m.var) + ("" if m.key == _var_name(m.var) else f" (looked for {m.key!r})"))
        section("Shape mismatches", self.shape_mismatches,
                lambda m: f"{_var_name(m.var)} {_shape_text(m.var_shape)} vs {m.key!r} {_shape_text(m.checkpoint_shape)}"
                          " in the checkpoint")
        section("Dtype mismatches", self.dtype_mismatches,
                lambda m: f"{_var_name(m.var)} {m.var_dtype.name} vs {m.key!r} {m.checkpoint_dtype.name} "
                          "in the checkpoint")
        section("Skipped by the rename rule", self.skipped, lambda s: s.name)
        section("Unused in the checkpoint", self.unused, str)
        section("Restored", self.restored,
                lambda r: _var_name(r.var) + ("" if r.key == _var_name(r.var) else f" <- {r.key!r}"))
        return "\n".join(lines)

    __str__ = summary

    def __repr__(self) -> str:
        return (f"<RestoreReport restored={len(self.restored)} missing={len(self.missing)} "
                f"unused={len(self.unused)} shape_mismatches={len(self.shape_mismatches)} "
                f"dtype_mismatches={len(self.dtype_mismatches)} skipped={len(self.skipped)}>")


# ------------------------------------------------------------------------------------ rename rules
class _NoMatch:
    """A rule's answer for a name it does not cover (the next rule is tried)."""

    def __repr__(self) -> str:
        return "NO_MATCH"


_NO_MATCH = _NoMatch()


def _prefix_rule(mapping: Mapping[str, str]) -> Callable[[str], str | None]:
    """A dict rule: exact names first, then the longest matching 'scope/' prefix ('/' = the root)."""
    for key, value in mapping.items():
        if not isinstance(key, str) or not (isinstance(value, str) or value is None):
            raise TypeError(f"rename dict entries must map str to str (or None to skip), got {key!r}: {value!r}")
    exact = {k: v for k, v in mapping.items() if not k.endswith("/")}
    prefixes = sorted(((k, v) for k, v in mapping.items() if k.endswith("/")), key=lambda kv: -len(kv[0]))

    def rule(name: str):
        if name in exact:
            return exact[name]
        for old, new in prefixes:
            if old == "/":  # the root: every name
                return None if new is None else ("" if new == "/" else new) + name
            if name.startswith(old):
                if new is None:
                    return None
                new = "" if new == "/" else new
                return new + name[len(old):]
        return _NO_MATCH
    return rule


def compile_rename(rename) -> Callable[[str], str | None]:
    """Turns a rename specification into ``name -> checkpoint key`` (None = skip the variable).

    Accepted: None (identity); a dict of exact names and 'scope/' prefixes (``{"new/": "old/"}``,
    ``{"/": "old/"}`` adds a prefix to every name, a value None skips); a ``(pattern, replacement)``
    tuple or a compiled pattern with replacement, applied with ``re.sub`` once where the pattern
    matches; a callable returning a key or None; or a list of these, the first rule that
    matches a name wins (names no rule matches keep their name).
    """
    if rename is None:
        return lambda name: name
    rules = rename if isinstance(rename, list) else [rename]
    compiled = []
    for rule in rules:
        if isinstance(rule, Mapping):
            compiled.append(_prefix_rule(rule))
        elif isinstance(rule, tuple) and len(rule) == 2 and isinstance(rule[0], (str, re.Pattern)):
            pattern = re.compile(rule[0]) if isinstance(rule[0], str) else rule[0]
            replacement = rule[1]

            def regex_rule(name, pattern=pattern, replacement=replacement):
                new, count = pattern.subn(replacement, name, count=1)
                return new if count else _NO_MATCH
            compiled.append(regex_rule)
        elif callable(rule):
            compiled.append(rule)
        else:
            raise TypeError(f"Cannot use {rule!r} as a rename rule: expected a dict, a (pattern, replacement) "
                            "tuple, a callable, or a list of these.")

    def apply(name: str):
        for rule in compiled:
            result = rule(name)
            if result is not _NO_MATCH:
                return result
        return name
    return apply


# ------------------------------------------------------------------------------------ var lists
def _is_variable(value) -> bool:
    return isinstance(value, variables.Variable)


def _parts(value) -> list | None:
    """The parts of a PartitionedVariable (or a list of parts), else None."""
    getter = getattr(value, "_get_variable_list", None)
    if getter is not None:
        return list(getter())
    if isinstance(value, (list, tuple)) and value and all(_is_variable(v) for v in value):
        return list(value)
    return None


def _group_variables(var_list, graph) -> list[tuple[str, list]]:
    """Normalises var_list to [(saver name, [variables])], partitions grouped under full_name."""
    groups: dict[str, list] = {}

    def add(name: str, var) -> None:
        groups.setdefault(name, [])
        if not any(v is var for v in groups[name]):
            groups[name].append(var)

    if var_list is None:
        var_list = graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
    if isinstance(var_list, Mapping):
        for name, value in var_list.items():
            parts = _parts(value)
            if parts is not None:
                for part in parts:
                    add(name, part)
            elif _is_variable(value):
                add(name, value)
            else:
                raise TypeError(f"var_list[{name!r}] must be a Variable, a PartitionedVariable or a list of "
                                f"partitions, got {type(value).__name__}")
        return list(groups.items())
    for value in var_list:
        parts = _parts(value)
        if parts is not None and not _is_variable(value):
            name = getattr(value, "name", None) or parts[0]._save_slice_info.full_name
            for part in parts:
                add(name, part)
        elif _is_variable(value):
            info = getattr(value, "_save_slice_info", None)
            add(info.full_name if info is not None else value.op.name, value)
        else:
            raise TypeError(f"var_list items must be Variables or PartitionedVariables, got {value!r}")
    return list(groups.items())


# ------------------------------------------------------------------------------------ reading
def _slice_spec(var):
    """(full shape, TensorSlice) of a partition, or None for a whole variable."""
    info = getattr(var, "_save_slice_info", None)
    if info is None:
        return None
    extents = [(int(o), int(n)) for o, n in zip(info.var_offset, info.var_shape)]
    return tuple(int(d) for d in info.full_shape), TensorSlice(extents)


def _read_into(reader, key: str, spec, out: np.ndarray) -> np.ndarray:
    """Reads tensor ``key`` (or the slice ``spec`` of it) into ``out``."""
    return reader.read_slice_into(key, None if spec is None else spec[1], out)


def _is_stored_in_slices(reader, key: str) -> bool:
    """True when the checkpoint holds ``key`` as separate slices (a partitioned save)."""
    return bool(reader.get_tensor_slices(key))


def _session_context(sess):
    """The session's kernel context (``.variables`` is its variable store)."""
    context = getattr(sess, "_context", None)
    if context is None or not hasattr(context, "variables"):
        raise TypeError(f"{sess!r} is not a Session of this package (no variable store found)")
    return context


def _assign(sess, context, var, value: np.ndarray) -> None:
    """Makes ``value`` the variable's value in ``sess`` (the array itself, no copy)."""
    op = var.op
    kernel = kernels.lookup(op.type)
    if op.type == "VariableV2" and kernel is not None and kernel.compute is not None:
        ref = kernel.compute(context, op, [])
        ref.set(value)
    else:  # not a ref variable: let the Variable assign it
        var.load(value, sess)


def _object_graph_map(reader) -> dict[str, str]:
    return object_graph.object_graph_from_checkpoint(reader).full_name_to_key()


def _static_shape(var) -> tuple | None:
    shape = var.get_shape()
    return None if shape.ndims is None else tuple(shape.as_list())


# ------------------------------------------------------------------------------------ the restore
def restore_matching(sess, checkpoint, var_list=None, rename=None, strict: bool = False) -> RestoreReport:
    """Restores every variable that matches a tensor in ``checkpoint``; reports the rest.

    Args:
        sess: the Session whose variables receive the values.
        checkpoint: a checkpoint prefix, a checkpoint file, or a directory (its latest checkpoint).
        var_list: None (all global variables of ``sess.graph``), a list of Variables /
            PartitionedVariables, or a dict {name: Variable | PartitionedVariable | list of parts}
            whose keys are the names looked up (before ``rename``).
        rename: see ``compile_rename``: dict (names and 'scope/' prefixes), (regex, replacement),
            callable, or a list of these; maps a variable's name to its checkpoint key.
        strict: if True, raise IncompleteRestoreError before changing any value when something is
            missing or mismatched.

    Returns:
        The RestoreReport.

    Raises:
        NotFoundError / ValueError: if the checkpoint cannot be found (the reader's errors).
        IncompleteRestoreError: with ``strict=True`` and an incomplete match.
        TypeError: for a malformed ``var_list`` or ``rename``.
    """
    graph = sess.graph
    groups = _group_variables(var_list, graph)
    for _, parts in groups:
        for var in parts:
            if var.graph is not graph:
                raise ValueError(f"Variable {var.name} is not in the graph of the session {sess!r}")
    rename_fn = compile_rename(rename)
    context = _session_context(sess)
    with load_checkpoint(checkpoint) as reader:
        shapes = reader.get_variable_to_shape_map()
        types = reader.get_variable_to_dtype_map()
        object_keys = _object_graph_map(reader) if OBJECT_GRAPH_KEY in shapes else {}
        report = RestoreReport(getattr(reader, "prefix", str(checkpoint)), len(shapes))
        used: set[str] = set()
        plan = []
        for name, parts in groups:
            candidate = rename_fn(name)
            if candidate is None:
                report.skipped.extend(Skipped(var, name) for var in parts)
                continue
            if not isinstance(candidate, str):
                raise TypeError(f"The rename rule gave {candidate!r} for {name!r}; expected a str or None")
            key = candidate
            if key not in shapes:
                key = object_keys.get(candidate) or candidate + VARIABLE_VALUE_SUFFIX
            if key not in shapes or key == OBJECT_GRAPH_KEY:
                report.missing.extend(Missing(var, candidate) for var in parts)
                continue
            used.add(key)
            stored_shape, stored_dtype = tuple(shapes[key]), types[key]
            for var in parts:
                spec = _slice_spec(var)
                var_dtype = var.dtype.base_dtype
                if var_dtype != stored_dtype:
                    report.dtype_mismatches.append(DtypeMismatch(var, key, var_dtype, stored_dtype))
                    continue
                if spec is not None:
                    if spec[0] != stored_shape:
                        report.shape_mismatches.append(ShapeMismatch(var, key, spec[0], stored_shape))
                        continue
                    out_shape = spec[1].slice_shape(stored_shape)
                else:
                    var_shape = _static_shape(var)
                    if var_shape is not None and (len(var_shape) != len(stored_shape) or any(
                            v is not None and v != s for v, s in zip(var_shape, stored_shape))):
                        report.shape_mismatches.append(ShapeMismatch(var, key, var_shape, stored_shape))
                        continue
                    out_shape = stored_shape
                plan.append((var, key, spec, out_shape, stored_dtype))
        report.unused = sorted(k for k in shapes if k not in used and k != OBJECT_GRAPH_KEY)
        if strict and not report.complete:
            raise IncompleteRestoreError(report)
        # Several partitions cut from one whole stored tensor: read it once, not once per part.
        pending = collections.Counter(key for _, key, spec, _, _ in plan if spec is not None)
        wholes: dict[str, np.ndarray] = {}
        for var, key, spec, out_shape, dtype in plan:
            is_bytes = dtype in (dtypes_lib.string, dtypes_lib.variant)
            out = np.empty(out_shape, dtype=object if is_bytes else dtype.numpy_dtype)
            if spec is not None and pending[key] > 1 and not _is_stored_in_slices(reader, key):
                if key not in wholes:
                    wholes[key] = reader.get_tensor(key)
                out[...] = wholes[key][spec[1].index(spec[0])]
                value = out
            else:
                value = _read_into(reader, key, spec, out)
            if spec is not None:
                pending[key] -= 1
                if not pending[key]:
                    wholes.pop(key, None)
            _assign(sess, context, var, value)
            report.restored.append(Restored(var, key))
    _logger.info("restore_matching: %r", report)
    return report
