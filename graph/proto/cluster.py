"""TensorFlow's cluster messages (tensorflow/core/protobuf/cluster.proto) declared for the codec in protobuf.py.

Layout::

    JobDef     : 1 name string, 2 tasks map<int32, string> (task index -> "host:port")
    ClusterDef : 1 job JobDef*
    ServerDef  : 1 cluster ClusterDef, 2 job_name string, 3 task_index int32, 5 protocol string, 6 port int32
                 (field 4, default_session_config, is not emulated)
"""

from __future__ import annotations

from graph.proto.protobuf import INT32, STRING, Field, MapField, Message

__all__ = ["JobDef", "ClusterDef", "ServerDef"]


class JobDef(Message, full_name="tensorflow.JobDef"):
    """One job of a cluster: its name and its tasks' addresses by index."""
    name = Field(1, STRING)
    tasks = MapField(2, INT32, STRING)


class ClusterDef(Message, full_name="tensorflow.ClusterDef"):
    """A cluster as its jobs (what ``ClusterSpec.as_cluster_def`` returns)."""
    job = Field(1, JobDef, repeated=True)


class ServerDef(Message, full_name="tensorflow.ServerDef"):
    """One server of a cluster: the cluster, its own job and task, and the protocol (``Server.server_def``)."""
    cluster = Field(1, ClusterDef)
    job_name = Field(2, STRING)
    task_index = Field(3, INT32)
    protocol = Field(5, STRING)
    port = Field(6, INT32)
