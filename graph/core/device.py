"""Device placement: DeviceSpec parsing, merging and naming; device scopes and functions; listings.

Mirrors TensorFlow 2.21's ``python/framework/device_spec.py``, ``python/framework/device.py``, the
``_UserDeviceSpec`` / ``_apply_device_functions`` pair of ``python/framework/ops.py`` and
``python/training/device_setter.py``. A device string is a sequence of ``/``-separated fields::

    /job:<name>/replica:<int>/task:<int>/device:<TYPE>:<int or *>

every field optional. Short forms ``/cpu:0``, ``GPU:1``, ``/gpu`` (any index) are accepted; the canonical
form written by ``to_string`` always uses ``/device:TYPE:INDEX``. Merging fills the unset fields of one spec
from another; in a device stack the innermost scope (or the op's own device) wins.

``ClusterSpec`` and ``replica_device_setter`` live in `graph.train.device_setter`, which builds on this module.

This module never imports the graph: an "op" here is any object with ``.device`` (a str), ``.type`` (the
op type, TF's ``node_def.op``), ``.name`` and, for ``apply_device_stack``, ``._set_device(str)``.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Mapping, Optional, Union

__all__ = [
    "DeviceSpec",
    "DeviceSpecV1",
    "DeviceSpecV2",
    "MergeDevice",
    "UserDeviceSpec",
    "STANDARD_PS_OPS",
    "check_valid",
    "is_device_spec",
    "canonical_name",
    "merge_device",
    "apply_device_stack",
    "device_listing",
    "format_device_listing",
]

# Device types recognised in the short forms "/cpu:0", "GPU:1" (device_spec.py `_VALID_DEVICE_TYPES`; real TF
# adds pluggable devices found at run time, of which an emulator has none).
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

# Op types placed on parameter servers by default (device_setter.py `STANDARD_PS_OPS`, TF 2.21).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable",
                   "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2",
                   "MutableDenseHashTable", "MutableDenseHashTableV2",
                   "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator",
                   "DecisionTreeResource")

_Components = tuple  # (job, replica, task, device_type, device_index)
_STRING_TO_COMPONENTS_CACHE: dict = {}


def _as_str_or_none(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _as_int_or_none(value: Any) -> Optional[int]:
    return None if value is None else int(value)


def _as_device_str_or_none(device_type: Any) -> Optional[str]:
    # TF upper-cases exactly "cpu" and "gpu" here; "/device:tpu:0" keeps "tpu" (the short "/tpu:0" is upper-cased
    # by the parser instead).
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _as_str_or_none(device_type)


def _parse_int(text: str, field: str, spec: str) -> int:
    try:
        return int(text)  # Python's int(): TF accepts "01", "-1" and " 1 " alike
    except ValueError as error:
        raise ValueError(f"{error} (the {field} field of device spec {spec!r})") from error


def _string_to_components(spec: Optional[str]) -> _Components:
    """Parses a device string into (job, replica, task, device_type, device_index); cached."""
    if spec is not None and not isinstance(spec, str):
        raise TypeError(f"A device spec must be a string, a DeviceSpec or None; got {spec!r} "
                        f"of type {type(spec).__name__}")
    cached = _STRING_TO_COMPONENTS_CACHE.get(spec)
    if cached is not None:
        return cached
    raw_spec = spec
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for fields in (part.split(":") for part in spec.split("/")):
        count = len(fields)
        if count == 2 and fields[0] == "job":
            job = fields[1]
        elif count == 2 and fields[0] == "replica":
            replica = _parse_int(fields[1], "replica", spec)
        elif count == 2 and fields[0] == "task":
            task = _parse_int(fields[1], "task", spec)
        elif count in (1, 2) and fields[0].upper() in _VALID_DEVICE_TYPES:
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = fields[0].upper()
            if count == 2 and fields[1] != "*":
                device_index = _parse_int(fields[1], "device index", spec)
        elif count == 3 and fields[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = fields[1]
            if fields[2] != "*":
                device_index = _parse_int(fields[2], "device index", spec)
        elif fields[0] != "":
            raise ValueError(f"Unknown attribute '{fields[0]}' is encountered while parsing the device spec: "
                             f"'{spec}'.")
    result = (job, replica, task, device_type, device_index)
    _STRING_TO_COMPONENTS_CACHE[raw_spec] = result
    return result


def _components_to_string(job, replica, task, device_type, device_index) -> str:
    """Canonical string: /job:J/replica:R/task:T/device:TYPE:INDEX, unset fields omitted, unset index '*'."""
    parts = []
    if job is not None:
        parts.append("/job:" + job)
    if replica is not None:
        parts.append("/replica:" + str(replica))
    if task is not None:
        parts.append("/task:" + str(task))
    if device_type is not None:
        parts.append("/device:%s:%s" % (device_type, "*" if device_index is None else device_index))
    return "".join(parts)


class DeviceSpecV2:
    """An immutable, possibly partial, device specification (TF's ``tf.DeviceSpec`` in 2.x)."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string", "_hash")

    def __init__(self, job: Optional[str] = None, replica: Optional[int] = None, task: Optional[int] = None,
                 device_type: Optional[str] = None, device_index: Optional[int] = None) -> None:
        """Creates a spec; every field is optional (None means unspecified).

        Args:
          job: job name (converted with str).
          replica: replica index (converted with int).
          task: task index (converted with int).
          device_type: e.g. "CPU" or "GPU"; "cpu" and "gpu" are upper-cased, other spellings kept.
          device_index: device index (converted with int); None means any ("*").
        """
        self._job = _as_str_or_none(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_str_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)
        self._as_string = _components_to_string(self._job, self._replica, self._task,
                                                self._device_type, self._device_index)
        self._hash = hash(self._as_string)

    def to_string(self) -> str:
        """Returns the canonical form, e.g. "/job:ps/replica:0/task:7/device:CPU:0" ("" when empty)."""
        return self._as_string

    @classmethod
    def from_string(cls, spec: Optional[str]) -> "DeviceSpecV2":
        """Parses a device string such as "/job:ps/task:7/cpu:0".

        Raises:
          ValueError: an unknown field, two device types, or a non-integer index.
        """
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec: Optional[str]) -> "DeviceSpecV2":
        """Returns a new spec parsed from `spec` (2.x behaviour; DeviceSpecV1 mutates itself instead)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev: "DeviceSpecV2") -> "DeviceSpecV2":
        """Returns a new spec with the fields of `dev` taking precedence over this one's."""
        return self.__class__(*self._get_combined_properties(dev))

    def replace(self, **kwargs: Any) -> "DeviceSpecV2":
        """Returns a copy with the given constructor fields overridden (None clears a field)."""
        fields = dict(job=self.job, replica=self.replica, task=self.task,
                      device_type=self.device_type, device_index=self.device_index)
        fields.update(kwargs)
        return self.__class__(**fields)

    @property
    def job(self) -> Optional[str]:
        """The job name, or None."""
        return self._job

    @property
    def replica(self) -> Optional[int]:
        """The replica index, or None."""
        return self._replica

    @property
    def task(self) -> Optional[int]:
        """The task index, or None."""
        return self._task

    @property
    def device_type(self) -> Optional[str]:
        """The device type ("CPU", "GPU", ...), or None."""
        return self._device_type

    @property
    def device_index(self) -> Optional[int]:
        """The device index, or None for any."""
        return self._device_index

    def _get_combined_properties(self, dev: "DeviceSpecV2") -> _Components:
        return (
            dev.job if dev.job is not None else self.job,
            dev.replica if dev.replica is not None else self.replica,
            dev.task if dev.task is not None else self.task,
            dev.device_type if dev.device_type is not None else self.device_type,
            dev.device_index if dev.device_index is not None else self.device_index,
        )

    def __eq__(self, other: object) -> bool:
        # As TF: equal when `other` is an instance of this class with the same string. Python tries the
        # subclass's reflected __eq__ first, so a V1 and a V2 spec never compare equal.
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
                f"device_type={self.device_type}, device_index={self.device_index})>")


class DeviceSpecV1(DeviceSpecV2):
    """The TF 1.x ``tf.compat.v1.DeviceSpec``: settable fields, mutating `parse_from_string` and `merge_from`."""

    __slots__ = ()

    def _changed(self) -> None:
        self._as_string = None
        self._hash = None

    @DeviceSpecV2.job.setter
    def job(self, job: Optional[str]) -> None:
        self._job = _as_str_or_none(job)
        self._changed()

    @DeviceSpecV2.replica.setter
    def replica(self, replica: Optional[int]) -> None:
        self._replica = _as_int_or_none(replica)
        self._changed()

    @DeviceSpecV2.task.setter
    def task(self, task: Optional[int]) -> None:
        self._task = _as_int_or_none(task)
        self._changed()

    @DeviceSpecV2.device_type.setter
    def device_type(self, device_type: Optional[str]) -> None:
        self._device_type = _as_device_str_or_none(device_type)
        self._changed()

    @DeviceSpecV2.device_index.setter
    def device_index(self, device_index: Optional[int]) -> None:
        self._device_index = _as_int_or_none(device_index)
        self._changed()

    def to_string(self) -> str:
        """Returns the canonical form of the current fields."""
        if self._as_string is None:
            self._as_string = _components_to_string(self._job, self._replica, self._task,
                                                    self._device_type, self._device_index)
        return self._as_string

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self.to_string())
        return self._hash

    def parse_from_string(self, spec: Optional[str]) -> "DeviceSpecV1":
        """Replaces every field with those parsed from `spec` and returns self."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = _string_to_components(spec)
        return self

    def merge_from(self, dev: DeviceSpecV2) -> None:
        """Overwrites this spec's fields with the fields set in `dev`."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = self._get_combined_properties(dev)


# As TF's `device.DeviceSpec` in a TF2 install (chosen when device.py is imported, before any
# disable_v2_behavior): the immutable class. `tf.compat.v1.DeviceSpec` is DeviceSpecV1.
DeviceSpec = DeviceSpecV2

DeviceLike = Union[str, DeviceSpecV2, None]


def check_valid(spec: Optional[str]) -> None:
    """Raises ValueError if `spec` is not a valid device string."""
    DeviceSpec.from_string(spec)


def is_device_spec(obj: Any) -> bool:
    """True for a DeviceSpec (V1 or V2)."""
    return isinstance(obj, DeviceSpecV2)


def canonical_name(device: DeviceLike) -> str:
    """Returns the canonical string of a DeviceSpec or device string; "" for None."""
    if device is None:
        return ""
    if is_device_spec(device):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


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


def merge_device(spec: Union[DeviceLike, MergeDevice]) -> MergeDevice:
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
        return "%s.%s" % (function.__self__.__class__.__name__, function.__func__.__name__)
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

    def __init__(self, device_name_or_function: Union[DeviceLike, Callable[[Any], Any]]) -> None:
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


def apply_device_stack(op: Any, stack: Iterable[Union[UserDeviceSpec, DeviceLike, Callable]]) -> None:
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
