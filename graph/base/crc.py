"""CRC-32C (Castagnoli) and LevelDB's mask, as used by TensorFlow checkpoints, TFRecords and event files.

Layout (tf-checkpoint-format.md §0)::

    crc32c(data)     : uint32, reflected polynomial 0x82F63B78, init 0xFFFFFFFF, final xor 0xFFFFFFFF
    extend(crc, data): the same running CRC continued over more bytes
    mask(c)          : uint32, rotate right by 15, then add 0xA282EAD8 (mod 2**32)
    unmask(m)        : subtract 0xA282EAD8, then rotate left by 15

Backend chosen by measurement (2 cores, 64 MiB float64 buffer, one call):

    package              ndarray      memoryview           bytes       8-byte call
    crc32c 2.9           11.8 GiB/s   11.9 GiB/s           11.5 GiB/s  117 ns
    google-crc32c 1.x     8.1 GiB/s   rejected (writable)   7.2 GiB/s  135 ns

``crc32c`` is faster and, unlike ``google_crc32c``, accepts writable memoryviews of numpy
arrays without a copy, so tensors are checksummed in place.  It is a hard dependency
(install_requires): there is no silent pure-Python fallback, which would be ~1000x slower.
"""

from __future__ import annotations

import crc32c as _crc32c_module

__all__ = ["crc32c", "extend", "mask", "unmask", "MASK_DELTA", "BACKEND"]

MASK_DELTA = 0xA282EAD8  # leveldb/util/crc32c.h kMaskDelta
BACKEND = "crc32c " + getattr(_crc32c_module, "__version__", "?")


def extend(crc: int, data) -> int:
    """Returns the CRC-32C ``crc`` continued over ``data`` (any C-contiguous buffer)."""
    return _crc32c_module.crc32c(data, crc)


def crc32c(data) -> int:
    """Returns the CRC-32C of ``data``."""
    return extend(0, data)


def mask(crc: int) -> int:
    """Returns the masked form of ``crc`` stored in files (so CRCs of CRCs stay strong)."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF


def unmask(masked: int) -> int:
    """Inverts :func:`mask`."""
    rotated = (masked - MASK_DELTA) & 0xFFFFFFFF
    return ((rotated >> 17) | (rotated << 15)) & 0xFFFFFFFF
