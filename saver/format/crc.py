"""CRC-32C and LevelDB's mask for the checkpoint formats: the one implementation lives in graph/platform/crc.py.

Kept as the saver's own name for it, so that the format modules read ``crc.mask(crc.crc32c(data))``.
"""

from __future__ import annotations

from graph.platform.crc import BACKEND, MASK_DELTA, crc32c, extend, mask, unmask

__all__ = ["crc32c", "extend", "mask", "unmask", "MASK_DELTA", "BACKEND"]
