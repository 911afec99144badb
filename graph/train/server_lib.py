"""tf.train.Server as an in-process server: a cluster's task whose target a Session resolves in this process.

TensorFlow's ``Server`` starts a gRPC server for one task of a cluster; a ``Session(server.target)`` then
runs graphs whose ops may be placed on any task of the cluster, and variables live on the task that holds
them, shared by every session of the cluster.  Here there is no network: ``Server`` registers itself under
its target (``grpc://localhost:<port>``), a Session given that target runs in this process with the
cluster's devices (``/job:<job>/replica:0/task:<i>/device:CPU:0`` for every task) and with the cluster's
shared variable store, so the classic parameter-server programs (``replica_device_setter`` over ps and
worker jobs, one Session per worker) run in one process and show where each op is placed.

``join()`` blocks until the process ends, as TF's (a ps task's ``server.join()`` never returns); call it
only in a thread you mean to park.  Sessions may target any server of the cluster; which one decides the
default device of unplaced ops (the server's own task, as TF's master places them).
"""

from __future__ import annotations

import socket
import threading
from typing import Any

from graph import errors
from graph.proto.cluster import ServerDef
from graph.train.device_setter import ClusterSpec

__all__ = ["Server", "ClusterSpec", "lookup_server"]

_SERVERS: dict[str, Server] = {}  # target -> server; what Session(target) resolves
_CLUSTER_STORES: dict[bytes, dict] = {}  # serialized ClusterDef -> the variable store its sessions share
_LOCK = threading.Lock()


def lookup_server(target: str) -> Server | None:
    """The in-process server registered under ``target`` (``grpc://host:port``), or None."""
    return _SERVERS.get(target)


def _free_port() -> int:
    """A port the OS reports free (what TF's "localhost:0" binds); nothing listens on it here."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("localhost", 0))
        return probe.getsockname()[1]


def _server_def(server_or_cluster_def, job_name, task_index, protocol) -> ServerDef:
    """TF's _make_server_def: a ServerDef from a ServerDef, ClusterSpec, ClusterDef or cluster dict."""
    if isinstance(server_or_cluster_def, ServerDef):
        server_def = ServerDef.FromString(server_or_cluster_def.SerializeToString())
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
        return server_def
    cluster_spec = ClusterSpec(server_or_cluster_def)
    if not job_name:
        if len(cluster_spec.jobs) == 1:
            job_name = cluster_spec.jobs[0]
        else:
            raise ValueError("Must specify an explicit `job_name`.")
    if task_index is None:
        indices = cluster_spec.task_indices(job_name) if job_name in cluster_spec.jobs else []
        if len(indices) == 1:
            task_index = indices[0]
        else:
            raise ValueError("Must specify an explicit `task_index`.")
    return ServerDef(cluster=cluster_spec.as_cluster_def(), job_name=job_name, task_index=int(task_index),
                     protocol=protocol or "grpc")


class Server:
    """An in-process tf.train.Server for one task of a cluster; ``target`` is what a Session connects to."""

    def __init__(self, server_or_cluster_def: Any, job_name: str | None = None, task_index: int | None = None,
                 protocol: str | None = None, config=None, start: bool = True):
        """Builds the server for task ``task_index`` of job ``job_name`` (TF's arguments and errors).

        Raises:
            ValueError: when the job or task cannot be inferred from a cluster of several.
            InternalError: when the job or task is not in the cluster (TF's messages).
        """
        self._server_def = _server_def(server_or_cluster_def, job_name, task_index, protocol)
        self._config = config
        jobs = {job.name: job for job in self._server_def.cluster.job}
        job = jobs.get(self._server_def.job_name)
        if job is None:
            raise errors.InternalError(None, None, f'Job "{self._server_def.job_name}" was not defined in cluster')
        task = self._server_def.task_index
        if task not in job.tasks:
            raise errors.InternalError(None, None, f'Task {task} was not defined in job "{self._server_def.job_name}"')
        address = job.tasks[task]
        host, _, port = address.rpartition(":")
        if port == "0":  # TF binds a free port for "host:0" and reports it in the target
            port = str(_free_port())
        self._target = f"grpc://{host or 'localhost'}:{port}"
        self._started = False
        self._stopped = threading.Event()
        with _LOCK:
            key = self._server_def.cluster.SerializeToString()
            self._store = _CLUSTER_STORES.setdefault(key, {})
        if start:
            self.start()

    @staticmethod
    def create_local_server(config=None, start: bool = True) -> Server:
        """A single-process cluster ``{"localhost": ["localhost:0"]}`` on a free port."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config, start=start)

    def start(self) -> None:
        """Starts the server: its target becomes resolvable by ``Session(target)``."""
        with _LOCK:
            _SERVERS[self._target] = self
        self._started = True

    def join(self) -> None:
        """Blocks until the server shuts down: for the rest of the process, as TF's (a ps task parks here)."""
        self._stopped.wait()

    @property
    def server_def(self) -> ServerDef:
        """The ServerDef this server was built from (cluster, job_name, task_index, protocol)."""
        return self._server_def

    @property
    def target(self) -> str:
        """The session target of this server, ``grpc://<host>:<port>``."""
        return self._target

    def devices(self) -> list[str]:
        """This server's task's CPU first, then the other tasks of its job, then the other jobs' tasks."""
        own_job, own_task = self._server_def.job_name, self._server_def.task_index
        tasks = sorted(((job.name, index) for job in self._server_def.cluster.job for index in job.tasks),
                       key=lambda item: (item != (own_job, own_task), item[0] != own_job, item))
        return [f"/job:{job}/replica:0/task:{index}/device:CPU:0" for job, index in tasks]

    def shared_variables(self) -> dict:
        """The variable store every session of this server's cluster uses (variables live on the servers)."""
        return self._store

    def __repr__(self) -> str:
        return f"<Server {self._target} /job:{self._server_def.job_name}/task:{self._server_def.task_index}>"
