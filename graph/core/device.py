"""Device placement: device scopes and device functions applied to new ops, and device listings.

Mirrors the ``_UserDeviceSpec`` / ``_apply_device_functions`` pair of TensorFlow 2.21's
``python/framework/ops.py`` and ``python/framework/device.py``'s merge_device; the strings themselves
are graph.core.device_spec's. In a device stack the innermost scope (or the op's own device) wins.
``ClusterSpec`` and ``replica_device_setter`` live in `graph.train.device_setter`, which builds on this module.

This module never imports the graph: an "op" here is any object with ``.device`` (a str), ``.type`` (the
op type, TF's ``node_def.op``), ``.name`` and, for ``apply_device_stack``, ``._set_device(str)``.
"""

from __future__ import annotations

import inspect
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from graph.core.device_spec import (DeviceLike, DeviceSpec, DeviceSpecV1, DeviceSpecV2, canonical_name,  # noqa: F401
                                    check_valid, is_device_spec)

__all__ = [
    "DeviceSpec", "DeviceSpecV1", "DeviceSpecV2", "MergeDevice", "UserDeviceSpec", "check_valid", "is_device_spec",
    "canonical_name", "merge_device", "apply_device_stack", "device_listing", "format_device_listing",
]


class MergeDevice:
    """A device function merging a fixed spec under an op's current device (the op's own fields win)."""

    __slots__ = ("_spec", "_string_cache")

    def __init__(self, spec: DeviceLike) -> None:
        """Wraps `spec`, a device string, DeviceSpec or None; a DeviceSpecV1 is snapshotted."""
        if isinstance(spec, DeviceSpecV1):
            self._spec = spec.__class__.from_string(spec.to_string())
        elif isinstance(spec, DeviceSpecV2):
            self._spec = spec
        else:
            self._spec = DeviceSpec.from_string(spec)
        self._string_cache: dict = {}

    def __call__(self, op: Any) -> DeviceSpecV2:
        """Returns the spec merged with `op.device`, whose fields take precedence."""
        current = DeviceSpec.from_string(op.device or "")
        return self._spec.make_merged_spec(current)

    def shortcut_string_merge(self, op: Any) -> str:
        """Returns ``self(op).to_string()``, cached on the op's current device string."""
        device = op.device or ""
        result = self._string_cache.get(device)
        if result is None:
            try:
                result = self(op).to_string()
            except ValueError as error:
                raise ValueError(f"Cannot merge device {self._spec.to_string()!r} into op "
                                 f"{getattr(op, 'name', op)!r}: its device {device!r} is invalid: {error}") from error
            self._string_cache[device] = result
        return result

    @property
    def is_null_merge(self) -> bool:
        """True when the wrapped spec is empty, so merging changes nothing."""
        return not self._spec.to_string()

    def __repr__(self) -> str:
        return f"<MergeDevice (spec: {self._spec.to_string()})>"


_cached_mergers: dict = {}


def merge_device(spec: DeviceLike | MergeDevice) -> MergeDevice:
    """Returns a (cached) MergeDevice for a device string or DeviceSpec.

    Raises:
      ValueError: if the spec is not valid.
    """
    if isinstance(spec, MergeDevice):
        return spec
    if isinstance(spec, DeviceSpecV1):
        return MergeDevice(spec)  # mutable: never a cache key
    merger = _cached_mergers.get(spec)
    if merger is None:
        merger = MergeDevice(spec)
        _cached_mergers[spec] = merger
    return merger


def _function_name(function: Callable) -> str:
    # As TF's function_utils.get_func_name (without tf_decorator unwrapping).
    if inspect.isfunction(function):
        return function.__name__
    if inspect.ismethod(function):
        return "{}.{}".format(function.__self__.__class__.__name__, function.__func__.__name__)
    return str(type(function))


def _function_code(function: Callable):
    if inspect.isfunction(function) or inspect.ismethod(function):
        return function.__code__
    try:
        return function.__call__.__code__
    except AttributeError:
        return None


class UserDeviceSpec:
    """One entry of a Graph's device stack: what ``with graph.device(x)`` pushes (TF's ``_UserDeviceSpec``)."""

    def __init__(self, device_name_or_function: DeviceLike | Callable[[Any], Any]) -> None:
        """Wraps a device string, DeviceSpec, device function, MergeDevice or None (None resets the stack)."""
        self._device_name_or_function = device_name_or_function
        self.display_name = str(device_name_or_function)
        self.function = device_name_or_function
        self.raw_string = None
        if isinstance(device_name_or_function, MergeDevice):
            self.is_null_merge = device_name_or_function.is_null_merge
        elif callable(device_name_or_function):
            self.is_null_merge = False
            code = _function_code(device_name_or_function)
            filename, line = (code.co_filename, code.co_firstlineno) if code else ("unknown", -1)
            self.display_name = "%s<%s, %d>" % (_function_name(device_name_or_function), filename, line)
        elif device_name_or_function is None:
            # Must be False: callers skip null merges, and None is the stop marker they must not skip.
            self.is_null_merge = False
        else:
            self.raw_string = device_name_or_function
            self.function = merge_device(device_name_or_function)
            self.is_null_merge = self.function.is_null_merge
        self.fast_string_merge = isinstance(self.function, MergeDevice)

    def string_merge(self, op: Any) -> str:
        """Returns the device string this entry gives `op` (whose `.device` holds the inner scopes' result).

        A merge spec merges under the op's device. A device function's result replaces it: a DeviceSpec
        becomes its string, bytes are decoded, a string is kept verbatim (TF does not canonicalize it).

        Raises:
          TypeError: if a device function returns something other than a string or DeviceSpec.
        """
        if self.fast_string_merge:
            return self.function.shortcut_string_merge(op)
        result = self.function(op)
        if is_device_spec(result):
            return result.to_string()
        if isinstance(result, bytes):
            return result.decode("utf-8")
        if isinstance(result, str):
            return result
        raise TypeError(f"Expected binary or unicode string, got {result!r} (returned by device function "
                        f"{self.display_name} for op {getattr(op, 'name', op)!r})")

    def __repr__(self) -> str:
        return f"<UserDeviceSpec {self.display_name}>"


def apply_device_stack(op: Any, stack: Iterable[UserDeviceSpec | DeviceLike | Callable]) -> None:
    """Sets `op`'s device from a device stack (outermost first), as TF's Graph._apply_device_functions.

    Entries are visited innermost first: null merges are skipped, a ``device(None)`` entry stops the walk,
    every other entry sets the op's device to ``entry.string_merge(op)``, verbatim: through
    ``op._set_device_from_string`` when the op has it (what TF calls), else ``op._set_device``.
    Raw entries are wrapped in UserDeviceSpec.
    """
    set_device = getattr(op, "_set_device_from_string", None) or op._set_device
    for entry in reversed(list(stack)):
        if not isinstance(entry, UserDeviceSpec):
            entry = UserDeviceSpec(entry)
        if entry.is_null_merge:
            continue
        if entry.function is None:
            break
        set_device(entry.string_merge(op))


def device_listing(ops: Any, canonical: bool = True) -> dict:
    """Groups op names by device: {device: sorted names}, devices sorted, the empty device as "".

    Args:
      ops: an iterable of ops (`.name`, `.device`) or anything with `get_operations()` (a Graph).
      canonical: group by canonical device name, so "/gpu:0" and "/device:GPU:0" are one device (as the
        Saver's sharding does).

    Raises:
      ValueError: if `canonical` and an op's device string is invalid (names the op).
    """
    if hasattr(ops, "get_operations"):
        ops = ops.get_operations()
    groups: dict = {}
    for op in ops:
        device = op.device or ""
        if canonical:
            try:
                device = canonical_name(device)
            except ValueError as error:
                raise ValueError(f"Op {op.name!r} has an invalid device {device!r}: {error}") from error
        groups.setdefault(device, []).append(op.name)
    return {device: sorted(groups[device]) for device in sorted(groups)}


def format_device_listing(listing: Any, max_names: int = 8) -> str:
    """Renders a device listing (or ops, see device_listing) as a small text table, one device per line."""
    if not isinstance(listing, Mapping):
        listing = device_listing(listing)
    rows = [("DEVICE", "OPS", "NAMES")]
    for device, names in listing.items():
        shown = ", ".join(names[:max_names])
        if len(names) > max_names:
            shown += f", ... (+{len(names) - max_names} more)"
        rows.append((device or "(no device)", str(len(names)), shown))
    device_width = max(len(row[0]) for row in rows)
    count_width = max(len(row[1]) for row in rows)
    lines = [f"{device:<{device_width}}  {count:>{count_width}}  {names}".rstrip() for device, count, names in rows]
    return "\n".join(lines) + "\n"
