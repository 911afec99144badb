"""DeviceSpec: device strings parsed, merged and printed as TensorFlow's device_spec.py does.

A device string is a sequence of ``/``-separated fields::

    /job:<name>/replica:<int>/task:<int>/device:<TYPE>:<int or *>

every field optional. Short forms ``/cpu:0``, ``GPU:1``, ``/gpu`` (any index) are accepted; the canonical
form written by ``to_string`` always uses ``/device:TYPE:INDEX``. Merging fills the unset fields of one spec
from another.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DeviceSpec", "DeviceSpecV1", "DeviceSpecV2", "DeviceLike", "check_valid", "is_device_spec",
           "canonical_name"]

# Device types recognised in the short forms "/cpu:0", "GPU:1" (device_spec.py `_VALID_DEVICE_TYPES`; real TF
# adds pluggable devices found at run time, of which an emulator has none).
_VALID_DEVICE_TYPES = frozenset({"CPU", "GPU", "TPU", "CUSTOM", "EPU"})

_Components = tuple  # (job, replica, task, device_type, device_index)
_STRING_TO_COMPONENTS_CACHE: dict = {}


def _as_str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _as_int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _as_device_str_or_none(device_type: Any) -> str | None:
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


def _string_to_components(spec: str | None) -> _Components:
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
        parts.append("/device:{}:{}".format(device_type, "*" if device_index is None else device_index))
    return "".join(parts)


class DeviceSpecV2:
    """An immutable, possibly partial, device specification (TF's ``tf.DeviceSpec`` in 2.x)."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string", "_hash")

    def __init__(self, job: str | None = None, replica: int | None = None, task: int | None = None,
                 device_type: str | None = None, device_index: int | None = None) -> None:
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
    def from_string(cls, spec: str | None) -> DeviceSpecV2:
        """Parses a device string such as "/job:ps/task:7/cpu:0".

        Raises:
          ValueError: an unknown field, two device types, or a non-integer index.
        """
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec: str | None) -> DeviceSpecV2:
        """Returns a new spec parsed from `spec` (2.x behaviour; DeviceSpecV1 mutates itself instead)."""
        return self.from_string(spec)

    def make_merged_spec(self, dev: DeviceSpecV2) -> DeviceSpecV2:
        """Returns a new spec with the fields of `dev` taking precedence over this one's."""
        return self.__class__(*self._get_combined_properties(dev))

    def replace(self, **kwargs: Any) -> DeviceSpecV2:
        """Returns a copy with the given constructor fields overridden (None clears a field)."""
        fields = dict(job=self.job, replica=self.replica, task=self.task,
                      device_type=self.device_type, device_index=self.device_index)
        fields.update(kwargs)
        return self.__class__(**fields)

    @property
    def job(self) -> str | None:
        """The job name, or None."""
        return self._job

    @property
    def replica(self) -> int | None:
        """The replica index, or None."""
        return self._replica

    @property
    def task(self) -> int | None:
        """The task index, or None."""
        return self._task

    @property
    def device_type(self) -> str | None:
        """The device type ("CPU", "GPU", ...), or None."""
        return self._device_type

    @property
    def device_index(self) -> int | None:
        """The device index, or None for any."""
        return self._device_index

    def _get_combined_properties(self, dev: DeviceSpecV2) -> _Components:
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
    def job(self, job: str | None) -> None:
        self._job = _as_str_or_none(job)
        self._changed()

    @DeviceSpecV2.replica.setter
    def replica(self, replica: int | None) -> None:
        self._replica = _as_int_or_none(replica)
        self._changed()

    @DeviceSpecV2.task.setter
    def task(self, task: int | None) -> None:
        self._task = _as_int_or_none(task)
        self._changed()

    @DeviceSpecV2.device_type.setter
    def device_type(self, device_type: str | None) -> None:
        self._device_type = _as_device_str_or_none(device_type)
        self._changed()

    @DeviceSpecV2.device_index.setter
    def device_index(self, device_index: int | None) -> None:
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

    def parse_from_string(self, spec: str | None) -> DeviceSpecV1:
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

DeviceLike = str | DeviceSpecV2 | None


def check_valid(spec: str | None) -> None:
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
