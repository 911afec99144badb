"""Tests for graph/base/crc.py: CRC-32C values, extension, mask, buffers (spec §0)."""

import numpy as np
import pytest

from graph.base import crc

_POLY = 0x82F63B78  # CRC-32C reflected polynomial
_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def extend_python(value: int, data) -> int:
    """Table-driven pure-Python CRC-32C: an independent cross-check of the C package."""
    value ^= 0xFFFFFFFF
    for byte in memoryview(data).cast("B"):
        value = _TABLE[(value ^ byte) & 0xFF] ^ (value >> 8)
    return value ^ 0xFFFFFFFF


def test_check_value():
    assert crc.crc32c(b"123456789") == 0xE3069283
    assert extend_python(0, b"123456789") == 0xE3069283


def test_extend_equals_whole():
    data = bytes(range(256)) * 3
    running = 0
    for start in range(0, len(data), 97):
        running = crc.extend(running, data[start:start + 97])
    assert running == crc.crc32c(data) == extend_python(0, data)


def test_mask_golden_and_inverse():
    assert crc.mask(0) == 0xA282EAD8 == 2726488792
    for value in (0, 1, 0xFFFFFFFF, 0x7C72C1FD, 0xE3069283):
        assert crc.unmask(crc.mask(value)) == value
        assert 0 <= crc.mask(value) < 2 ** 32
    assert crc.mask(0x7C72C1FD) == 0x267DE3BD  # spec §2 string example


@pytest.mark.parametrize("make", [
    lambda a: a, lambda a: memoryview(a), lambda a: memoryview(a).cast("B"), lambda a: a.tobytes(),
    lambda a: a.reshape(-1).view(np.uint8),
])
def test_numpy_buffers_without_copy(make):
    array = np.arange(1000, dtype=np.float64).reshape(10, 100)
    assert crc.crc32c(make(array)) == crc.crc32c(array.tobytes())


def test_empty():
    assert crc.crc32c(b"") == 0
    assert crc.crc32c(np.zeros(0, np.float32)) == 0


def test_c_backend_is_required():
    assert crc.BACKEND.startswith("crc32c ")
    assert not hasattr(crc, "extend_python")  # no silent slow fallback
