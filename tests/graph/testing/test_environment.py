"""Tests for graph/testing/environment.py: what the build and the machine report (a CPU-only build without XLA)."""

import pytest

import graph.compat.v1 as tf


def test_build_and_device_queries():
    assert not tf.test.is_built_with_cuda() and not tf.test.is_built_with_rocm()
    assert not tf.test.is_built_with_gpu_support() and not tf.test.is_built_with_xla()
    assert tf.test.is_gpu_available() is False and tf.test.is_gpu_available(True, (3, 0)) is False
    assert tf.test.gpu_device_name() == ""
    assert tf.test.is_cpu_target_available("x86") is False
    with pytest.raises(AssertionError, match="Unknown CPU target: mips"):
        tf.test.is_cpu_target_available("mips")
    with pytest.raises(RuntimeError, match=r"sync_devices\(\) must only be called in Eager mode"):
        tf.test.experimental.sync_devices()
    assert tf.test.mock.MagicMock is __import__("unittest.mock").mock.MagicMock


def test_test_src_dir_path(monkeypatch):
    monkeypatch.delenv("TEST_SRCDIR", raising=False)
    with pytest.raises(KeyError, match="TEST_SRCDIR"):
        tf.test.test_src_dir_path("core/platform")
    monkeypatch.setenv("TEST_SRCDIR", "/runfiles")
    monkeypatch.setenv("TEST_WORKSPACE", "org_tensorflow")
    assert tf.test.test_src_dir_path("core/platform") == "/runfiles/org_tensorflow/tensorflow/core/platform"


@pytest.mark.tf
def test_build_queries_agree_with_a_cpu_tensorflow(tf_module):
    """The CUDA, ROCm and GPU answers are those of the CPU-only TensorFlow installed; XLA and the CPU code
    generators exist there and not here."""
    for name in ("is_built_with_cuda", "is_built_with_rocm", "is_built_with_gpu_support", "is_gpu_available",
                 "gpu_device_name"):
        assert getattr(tf.test, name)() == getattr(tf_module.test, name)(), name
    with pytest.raises(AssertionError) as theirs:
        tf_module.test.is_cpu_target_available("mips")
    with pytest.raises(AssertionError) as ours:
        tf.test.is_cpu_target_available("mips")
    assert str(theirs.value).startswith(str(ours.value))  # pytest appends its "assert False" to TF's
    with pytest.raises(RuntimeError) as theirs:
        tf_module.test.experimental.sync_devices()
    with pytest.raises(RuntimeError) as ours:
        tf.test.experimental.sync_devices()
    assert str(ours.value) == str(theirs.value)
