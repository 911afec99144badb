"""Parameter-server placement: ClusterSpec and replica_device_setter (TF's training/device_setter.py).

``replica_device_setter`` returns a device function for ``tf.device``: ops whose type is in ``ps_ops``
(variables, by default `STANDARD_PS_OPS`) go to ``/job:ps/task:<n>`` chosen round robin (or by
``ps_strategy``), every other op to ``worker_device``; each is merged under the op's own device.
``ClusterSpec`` is the minimal ``tf.train.ClusterSpec`` it reads the ps job's size from.
"""

from __future__ import annotations

import logging
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from graph.core.device_spec import DeviceSpec
from graph.proto.cluster import ClusterDef, JobDef

# Op types placed on parameter servers by default (device_setter.py `STANDARD_PS_OPS`, TF 2.21).
STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable",
                   "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2",
                   "MutableDenseHashTable", "MutableDenseHashTableV2",
                   "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp",
                   "ResourceConditionalAccumulator",
                   "DecisionTreeResource")


__all__ = ["ClusterSpec", "replica_device_setter"]

_logger = logging.getLogger("graph.core.device")


class ClusterSpec:
    """A cluster as jobs of tasks (network addresses); minimal TF ``tf.train.ClusterSpec``."""

    def __init__(self, cluster: Mapping[str, Any] | ClusterSpec | ClusterDef) -> None:
        """Builds from {job: [address, ...]}, {job: {task_index: address}}, a ClusterDef or a ClusterSpec.

        Raises:
          TypeError: if `cluster` or a job's tasks have the wrong type.
        """
        if isinstance(cluster, ClusterSpec):
            # TF copies through the ClusterDef proto, which holds jobs sorted by name.
            self._cluster_spec = {job: dict(tasks) for job, tasks in sorted(cluster._cluster_spec.items())}
            return
        if isinstance(cluster, ClusterDef):
            self._cluster_spec = {job.name: dict(job.tasks) for job in cluster.job}
            return
        if not isinstance(cluster, dict):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")
        self._cluster_spec: dict = {}
        for job_name, tasks in cluster.items():
            if not isinstance(job_name, (str, bytes)):
                raise TypeError("Job name {!r} must be bytes or unicode".format(job_name))
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                job_tasks = {int(index): address for index, address in tasks.items()}
            else:
                raise TypeError("The tasks for job %r must be a list or a dictionary from integers to strings."
                                % (job_name,))
            for address in job_tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError("Task address {!r} must be bytes or unicode".format(address))
            self._cluster_spec[job_name] = job_tasks

    def __bool__(self) -> bool:
        return bool(self._cluster_spec)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ClusterSpec):
            other = other._cluster_spec
        return self._cluster_spec == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # mutable-dict semantics, as TF (which defines __eq__ only)

    def __repr__(self) -> str:
        values = self.as_dict()
        return "ClusterSpec({" + ", ".join(repr(k) + ": " + repr(values[k]) for k in sorted(values)) + "})"

    @property
    def jobs(self) -> list:
        """The job names, in insertion order."""
        return list(self._cluster_spec)

    def _job(self, job_name: str) -> dict:
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: {!r}".format(job_name)) from None

    def num_tasks(self, job_name: str) -> int:
        """The number of tasks in `job_name` (ValueError if no such job)."""
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list:
        """The sorted task indices of `job_name` (ValueError if no such job)."""
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of one task (ValueError if the job or task does not exist)."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index {!r} in job {!r}".format(task_index, job_name)) from None

    def job_tasks(self, job_name: str) -> list:
        """Addresses indexed by task; None fills the gaps of a sparse job."""
        job = self._job(job_name)
        addresses = [None] * (max(job) + 1) if job else []
        for index, address in job.items():
            addresses[index] = address
        return addresses

    def as_cluster_def(self) -> ClusterDef:
        """The cluster as a ClusterDef message: jobs sorted by name, as TF builds it."""
        return ClusterDef(job=[JobDef(name=job, tasks=dict(sorted(tasks.items())))
                               for job, tasks in sorted(self._cluster_spec.items())])

    def as_dict(self) -> dict:
        """{job: [address, ...]} for dense jobs, {job: {index: address}} for sparse ones, {} for empty."""
        result = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                result[job] = {}
            elif max(indices) + 1 == len(indices):
                result[job] = self.job_tasks(job)
            else:
                result[job] = {index: self.task_address(job, index) for index in indices}
        return result


class _RoundRobinStrategy:
    """Returns the next ps task index, cycling 0, 1, ..., num_tasks - 1 (TF's private class)."""

    def __init__(self, num_tasks: int) -> None:
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op: Any) -> int:
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


def _op_type(op: Any) -> str:
    # Our Operation has `.type`; a NodeDef-like object has `.op` (what TF reads).
    op_type = getattr(op, "type", None)
    return op_type if op_type is not None else op.op


class _ReplicaDeviceChooser:
    """Chooses a device for each op in a replicated (parameter server) setup (TF's private class)."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy) -> None:
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op: Any) -> str:
        """Returns the device for `op`: a ps task for ps op types, else the worker device, merged under op's."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and _op_type(op) in self._ps_ops:
            ps_device = DeviceSpec.from_string(self._ps_device)
            current_job, ps_job = current.job, ps_device.job
            if ps_job and (not current_job or current_job == ps_job):
                # The strategy is consulted (and round robin advances) even when the op's own task wins below.
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker_device = DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks: int = 0, ps_device: str | None = "/job:ps",
                          worker_device: str | None = "/job:worker", merge_devices: bool = True,
                          cluster: Mapping[str, Any] | ClusterSpec | None = None,
                          ps_ops: Iterable[str] | None = None,
                          ps_strategy: Callable[[Any], int] | None = None) -> Callable[[Any], str] | None:
    """Returns a device function placing variable ops on ps tasks and the rest on the worker.

    Args:
      ps_tasks: number of ps tasks; ignored when `cluster` is given.
      ps_device: device of the ps job; "" or None disables ps placement.
      worker_device: device of the worker job; "" or None means no worker constraint.
      merge_devices: merge into an op's existing device (True) or keep a set device untouched (False).
      cluster: dict, ClusterSpec or ClusterDef; the number of tasks of `ps_device`'s job gives ps_tasks.
      ps_ops: op types placed on ps; default STANDARD_PS_OPS.
      ps_strategy: callable op -> ps task index; default round robin over the ps tasks.

    Returns:
      The device function, or None (``device(None)``: a stack reset) when there are no ps tasks, or when
      `cluster` lacks the ps job.

    Raises:
      TypeError: if `cluster` is not a dict or ClusterSpec, or `ps_strategy` is not callable.
    """
    if cluster is not None:
        cluster_dict = (cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)).as_dict()
        ps_job_name = DeviceSpec.from_string(ps_device).job
        if ps_job_name not in cluster_dict or cluster_dict[ps_job_name] is None:
            return None
        ps_tasks = len(cluster_dict[ps_job_name])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _logger.warning("DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy)
    return chooser.device_function
