"""The constant tables of baseline JPEG: ITU-T T.81 Annex K's example quantization (K.1, K.2) and Huffman (K.3)
tables, which libjpeg uses as its defaults (jcparam.c, jstdhuff.c), and the AAN scale factors of the fast DCT.

A Huffman table is ``(counts, symbols)``: ``counts[i]`` codes of length ``i + 1`` (16 lengths), then the
symbols in code order.  Quantization tables are in natural (row-major) order.
"""

from __future__ import annotations

import math

__all__ = ["STANDARD_DC_LUMINANCE", "STANDARD_DC_CHROMINANCE", "STANDARD_AC_LUMINANCE", "STANDARD_AC_CHROMINANCE",
           "LUMINANCE_QUANT", "CHROMINANCE_QUANT", "AAN_SCALES"]

STANDARD_DC_LUMINANCE = ((0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0), bytes(range(12)))  # T.81 K.3.1
STANDARD_DC_CHROMINANCE = ((0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0), bytes(range(12)))
STANDARD_AC_LUMINANCE = ((0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D), bytes.fromhex(  # T.81 K.3.2
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25262728292a3435"
    "363738393a434445464748494a535455565758595a636465666768696a737475767778797a838485868788898a92939495969798"
    "999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4"
    "f5f6f7f8f9fa"))
STANDARD_AC_CHROMINANCE = ((0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77), bytes.fromhex(
    "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718191a262728292a"
    "35363738393a434445464748494a535455565758595a636465666768696a737475767778797a82838485868788898a9293949596"
    "9798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4"
    "f5f6f7f8f9fa"))

LUMINANCE_QUANT = (  # T.81 K.1
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99)
CHROMINANCE_QUANT = (  # T.81 K.2
    17, 18, 24, 47, 99, 99, 99, 99,
    18, 21, 26, 66, 99, 99, 99, 99,
    24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99) + (99,) * 32


def _aan_scales() -> tuple:
    """round(2**14 * a(u) * a(v)), a(0) = 1 and a(k) = sqrt(2) cos(k pi / 16): jddctmgr.c's aanscales."""
    factors = [1.0] + [math.sqrt(2.0) * math.cos(k * math.pi / 16) for k in range(1, 8)]
    return tuple(int(round(16384 * factors[u] * factors[v])) for u in range(8) for v in range(8))


AAN_SCALES = _aan_scales()
