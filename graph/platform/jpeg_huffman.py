"""Huffman decoding tables for JPEG scans (jdhuff.c jpeg_make_d_derived_tbl) and the bit-level helpers the
scan decoders share: canonical codes looked up by a 9-bit window, longer codes by their per-length bounds.

A code not in the table reads as libjpeg reads it: 17 bits consumed, symbol 0.
"""

from __future__ import annotations

import functools

from graph.platform.jpeg_markers import JpegError

__all__ = ["FAST_BITS", "BAD_CODE_BITS", "lookup", "long_code", "defined", "extend"]

FAST_BITS = 9
BAD_CODE_BITS = 17  # libjpeg reads one bit past the longest code before giving up


@functools.lru_cache(maxsize=64)
def lookup(table, is_dc: bool):
    """A decoding table: ``fast``, for each 9-bit window, ``length << 8 | symbol`` of a code of at most 9 bits
    it starts with (0 if longer), then ``longest``, per length 10-16, the largest code value and the index
    correction of canonical codes (jdhuff.c jpeg_make_d_derived_tbl, with its checks)."""
    counts, symbols = table
    if is_dc and any(symbol > 15 for symbol in symbols):
        raise JpegError("Bogus Huffman table definition")
    fast = [0] * (1 << FAST_BITS)
    longest = []
    code, position = 0, 0
    for length, count in enumerate(counts, start=1):
        first_code, first_position = code, position
        for _ in range(count):
            if length <= FAST_BITS:
                start = code << (FAST_BITS - length)
                fast[start:start + (1 << (FAST_BITS - length))] = [(length << 8) | symbols[position]] * (
                    1 << (FAST_BITS - length))
            code, position = code + 1, position + 1
        if code > (1 << length):
            raise JpegError("Bogus Huffman table definition")
        if length > FAST_BITS:
            longest.append((length, code - 1 if count else -1, first_position - first_code))
        code <<= 1
    return fast, tuple(longest), symbols


def long_code(table, window: int) -> int:
    """``length << 8 | symbol`` of the code of over 9 bits at the start of a 16-bit window (or a bad code)."""
    _, longest, symbols = table
    for length, largest, correction in longest:
        code = window >> (16 - length)
        if code <= largest:
            return (length << 8) | symbols[code + correction]
    return BAD_CODE_BITS << 8


def defined(table):
    """``table``, which a scan needs: an error if its DHT never came."""
    if table is None:
        raise JpegError("Huffman table was not defined")
    return table


def extend(value: int, size: int) -> int:
    """T.81 F.12 EXTEND: the signed coefficient of ``size`` bits ``value``."""
    return value - (1 << size) + 1 if value < (1 << (size - 1)) else value
