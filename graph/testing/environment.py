"""What a test may ask of the build and the machine (``tf.test.is_built_with_cuda``, ``is_gpu_available``, ...).

This emulator is pure Python with numpy kernels: it was built with no CUDA, ROCm or XLA, compiles code for no
CPU target, and a Session has CPU devices only, so the answers are those of a CPU-only TensorFlow build
without XLA, and GPU-only tests skip themselves as they do there.
"""

from __future__ import annotations

import os

__all__ = ["is_built_with_cuda", "is_built_with_rocm", "is_built_with_gpu_support", "is_built_with_xla",
           "is_cpu_target_available", "is_gpu_available", "gpu_device_name", "test_src_dir_path", "sync_devices"]

# The target prefixes TF's IsCPUTargetAvailable knows (util_port's IsAArch32Available, ...).
_CPU_TARGET_PREFIXES = ("arm", "aarch64", "ppc", "powerpc", "x86", "s390x")


def is_built_with_cuda() -> bool:
    """Whether the build has CUDA (GPU) support: False."""
    return False


def is_built_with_rocm() -> bool:
    """Whether the build has ROCm (GPU) support: False."""
    return False


def is_built_with_gpu_support() -> bool:
    """Whether the build has CUDA or ROCm support."""
    return is_built_with_cuda() or is_built_with_rocm()


def is_built_with_xla() -> bool:
    """Whether the build has XLA: False (nothing here compiles graphs)."""
    return False


def is_cpu_target_available(target: str) -> bool:
    """Whether the build generates code for CPU ``target`` (XLA's LLVM backends): False for every target TF knows.

    Raises:
        AssertionError: for a target TF does not know ("Unknown CPU target: ...").
    """
    if not target.startswith(_CPU_TARGET_PREFIXES):
        raise AssertionError("Unknown CPU target: " + target)
    return False


def is_gpu_available(cuda_only: bool = False, min_cuda_compute_capability: tuple[int, int] | None = None) -> bool:
    """Whether a GPU device is available: False (a Session lists CPU devices only)."""
    del cuda_only, min_cuda_compute_capability  # no GPU qualifies, whatever is asked of it
    return False


def gpu_device_name() -> str:
    """The name of the first GPU device, or "" when there is none (always, here)."""
    return ""


def test_src_dir_path(relative_path: str) -> str:
    """``$TEST_SRCDIR/$TEST_WORKSPACE/tensorflow/<relative_path>``: Bazel's runfiles of a TF test.

    Raises:
        KeyError: when the Bazel variables are not set, as TF raises.
    """
    return os.path.join(os.environ["TEST_SRCDIR"], os.environ["TEST_WORKSPACE"], "tensorflow", relative_path)


def sync_devices() -> None:
    """``tf.test.experimental.sync_devices``: TF allows it only when executing eagerly, which TF1 graph mode never is.

    Raises:
        RuntimeError: always (TF's message).
    """
    raise RuntimeError("sync_devices() must only be called in Eager mode, outside tf.functions")
