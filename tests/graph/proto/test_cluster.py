"""ClusterDef / JobDef messages: the same messages as TensorFlow's cluster_pb2, both ways."""

import pytest

from graph.proto.cluster import ClusterDef, JobDef


def _cluster() -> ClusterDef:
    return ClusterDef(job=[JobDef(name="ps", tasks={0: "ps0:2222", 1: "ps1:2222"}),
                           JobDef(name="worker", tasks={3: "w3:2222"})])


@pytest.mark.tf
def test_cluster_def_round_trips_through_tensorflow(tf_module):
    from tensorflow.core.protobuf import cluster_pb2
    real = cluster_pb2.ClusterDef.FromString(_cluster().to_bytes())
    assert [job.name for job in real.job] == ["ps", "worker"]
    assert dict(real.job[0].tasks) == {0: "ps0:2222", 1: "ps1:2222"} and dict(real.job[1].tasks) == {3: "w3:2222"}
    assert ClusterDef.from_bytes(real.SerializeToString()) == _cluster()


@pytest.mark.tf
def test_as_cluster_def_matches_tensorflow(tf_module):
    from graph.train.device_setter import ClusterSpec
    cluster = {"worker": {1: "w1:2222", 0: "w0:2222"}, "ps": ["ps0:2222"]}
    real = tf_module.train.ClusterSpec(cluster).as_cluster_def()
    ours = ClusterSpec(cluster).as_cluster_def()
    assert ClusterDef.from_bytes(real.SerializeToString()) == ours
    assert ClusterSpec(ours).as_dict() == tf_module.train.ClusterSpec(real).as_dict()
