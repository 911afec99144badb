"""Placement: each op's requested device checked against a session's devices, as TF's placer does.

A session has a fixed list of devices: a local session ``/job:localhost/replica:0/task:0/device:CPU:<i>``
for each CPU that ``ConfigProto.device_count`` declares (one by default); a session on an in-process
``tf.train.Server`` every task of its cluster (graph.train.server_lib).  An op's device string is a
partial specification: it is satisfied by the first device whose every given field (job, replica, task,
device type, index) matches.  When none does, the run fails with TF's InvalidArgumentError ("Cannot assign
a device for operation ...") naming the op.  ``allow_soft_placement`` lets the placer drop the device
type and index (a GPU or a missing CPU:1 falls back to the task's CPU:0), never the job, replica or task.
An op colocated with others (``_class: loc:@v``, as a variable's initializer and assign ops are) asks for
its own device's fields completed by theirs, so it runs where the variable lives.

As TF's placer, the whole graph is placed, not just the part a run needs, and ops with no inputs and one
non-ref output ("generators": Const, ...) are placed after the others (TF places them beside their
consumers), which is the order errors and ``log_device_placement`` lines come in.  Placement is computed
when the graph has changed since the session last placed it, never per run.
"""

from __future__ import annotations

from graph import errors
from graph.core.device_spec import DeviceSpecV2

__all__ = ["Placer", "local_devices", "placement_lines"]

_LOCAL_PREFIX = "/job:localhost/replica:0/task:0/device:"


def local_devices(config) -> list[str]:
    """The device names of a local session: CPU:0..n-1 with n from ``config.device_count['CPU']`` (default 1)."""
    count = 1
    if config is not None and config.device_count:
        count = max(int(config.device_count.get("CPU", 1)), 1)
    return [f"{_LOCAL_PREFIX}CPU:{index}" for index in range(count)]


def _fields(name: str) -> tuple:
    spec = DeviceSpecV2.from_string(name)
    device_type = spec.device_type.upper() if spec.device_type else None
    return spec.job, spec.replica, spec.task, device_type, spec.device_index


def _matches(requested: tuple, device: tuple) -> bool:
    return all(want is None or want == have for want, have in zip(requested, device))


def _is_generator(op) -> bool:
    """TF's IsGeneratorNode: no inputs, one output, not of a ref type (placed after its consumers)."""
    return not op._inputs and len(op._outputs) == 1 and not op._outputs[0]._dtype._is_ref_dtype


def _colocated_device(op, requested: str, groups) -> str:
    """The device an op colocated with others (``_class: loc:@name``) asks for: its own fields, the rest from
    the ops it is colocated with, as TF's placer merges a colocation group's requested devices."""
    spec = None
    for group in groups:
        if not group.startswith(b"loc:@"):
            continue
        target = op._graph._get_operation_or_none(group[5:].decode())
        if target is None or target is op or not target._device:
            continue
        target_spec = DeviceSpecV2.from_string(target._device)
        spec = target_spec if spec is None else target_spec.make_merged_spec(spec)
    if spec is None:
        return requested
    return spec.make_merged_spec(DeviceSpecV2.from_string(requested)).to_string() if requested else spec.to_string()


class Placer:
    """Assigns every op of a graph a device of ``devices``, or raises TF's error for the first it cannot."""

    def __init__(self, devices: list[str], allow_soft_placement: bool = False):
        self.devices = list(devices)
        self._fields = [_fields(name) for name in self.devices]
        self._soft = bool(allow_soft_placement)
        self._default = self.devices[0]
        self._cache: dict[str, str] = {"": self._default}  # requested device string -> assigned device

    def assign(self, op) -> str:
        """The device ``op`` runs on.

        Raises:
            InvalidArgumentError: when no device satisfies the op's explicit device (TF's wording).
        """
        requested = op._device
        groups = op._attrs.get("_class")
        if groups:
            requested = _colocated_device(op, requested, groups)
        assigned = self._cache.get(requested)
        if assigned is None:
            assigned = self._resolve(requested)
            if assigned is None:
                raise errors.InvalidArgumentError(None, op, self._message(op, requested))
            self._cache[requested] = assigned
        return assigned

    def _resolve(self, requested: str) -> str | None:
        fields = _fields(requested)
        for name, device in zip(self.devices, self._fields):
            if _matches(fields, device):
                return name
        if self._soft:  # TF's soft placement drops the device type and index, never the task
            relaxed = fields[:3] + (None, None)
            for name, device in zip(self.devices, self._fields):
                if _matches(relaxed, device):
                    return name
        return None

    def _message(self, op, requested: str) -> str:
        message = (f"Cannot assign a device for operation {op.name}: {{{{node {op.name}}}}} was explicitly assigned to "
                   f"{requested} but available devices are [ {', '.join(sorted(self.devices))} ]. Make sure the device "
                   "specification refers to a valid device.")
        if _fields(requested)[3] == "GPU":
            message += " The requested device appears to be a GPU, but CUDA is not enabled."
        return message

    def place(self, operations, placed: list) -> list[tuple]:
        """Appends ``(op, device)`` to ``placed`` for ``operations`` in TF's order (generators last); returns it.

        Raises:
            InvalidArgumentError: for the first op (in that order) no device satisfies; ``placed`` then
                holds the ops placed before it.
        """
        generators = []
        for op in operations:
            if _is_generator(op):
                generators.append(op)
            else:
                placed.append((op, self.assign(op)))
        for op in generators:
            placed.append((op, self.assign(op)))
        return placed


def placement_lines(placed: list[tuple]) -> str:
    """``log_device_placement``'s lines: ``name: (Type): device``, one per op, in placement order."""
    return "".join(f"{op.name}: ({op.type}): {device}\n" for op, device in placed)
