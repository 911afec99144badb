"""PNG encoding and decoding of 8-bit images with zlib (what the ImageSummary op writes), without an imaging library.

Layout (PNG specification, ISO/IEC 15948), every integer big-endian::

    signature : 8 bytes  89 50 4E 47 0D 0A 1A 0A
    chunk     : length uint32 '>I', type 4 ASCII bytes, data[length], crc uint32 '>I' = crc32(type + data)
    IHDR data : width uint32, height uint32, bit depth uint8 (8), colour type uint8 (0 grey, 4 grey+alpha,
                2 RGB, 6 RGBA), compression uint8 (0), filter method uint8 (0), interlace uint8 (0)
    IDAT data : zlib stream of the rows, each row a filter-type byte then width * channels samples
    IEND data : empty

The encoder writes filter type 0 (None) on every row; the decoder reads all five filter types, so it
reads what libpng writes too.  TensorFlow's encoder (libpng) chooses filters per row, so its bytes differ
from ours while the pixels are the same.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

__all__ = ["PNG_SIGNATURE", "encode_png", "decode_png"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IHDR = struct.Struct(">IIBBBBB")
_CHUNK_HEAD = struct.Struct(">I4s")
_CRC = struct.Struct(">I")
_COLOUR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
_CHANNELS = {value: key for key, value in _COLOUR_TYPE.items()}
_BIT_DEPTH = 8


def _chunk(kind: bytes, data: bytes) -> bytes:
    return _CHUNK_HEAD.pack(len(data), kind) + data + _CRC.pack(zlib.crc32(kind + data))


def encode_png(image: np.ndarray, compression: int = -1) -> bytes:
    """The PNG bytes of a uint8 ``[height, width, channels]`` image (channels 1 to 4).

    Args:
        image: the pixels, row by row.
        compression: zlib level 0-9, or -1 for zlib's default (as TensorFlow's ``compression=-1``).

    Raises:
        ValueError: for an image that is not uint8, not 3-D, or has another channel count.
    """
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in _COLOUR_TYPE:
        raise ValueError(f"encode_png needs a uint8 [height, width, channels] image with 1-4 channels, got "
                         f"{image.dtype} {list(image.shape)}")
    height, width, channels = image.shape
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)  # column 0: filter type 0 (None)
    rows[:, 1:] = image.reshape(height, width * channels)
    header = _IHDR.pack(width, height, _BIT_DEPTH, _COLOUR_TYPE[channels], 0, 0, 0)
    return b"".join((PNG_SIGNATURE, _chunk(b"IHDR", header),
                     _chunk(b"IDAT", zlib.compress(rows.tobytes(), compression)), _chunk(b"IEND", b"")))


def _unfilter(rows: np.ndarray, channels: int) -> np.ndarray:
    """Undoes the per-row filters (PNG §9.2) of ``[height, 1 + stride]`` rows."""
    height, stride = rows.shape[0], rows.shape[1] - 1
    out = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            current = line
        elif kind == 2:
            current = (line + previous) & 0xFF
        else:  # Sub, Average and Paeth depend on the reconstructed bytes to the left: byte by byte
            current = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                left = current[x - channels] if x >= channels else 0
                up = previous[x]
                upper_left = previous[x - channels] if x >= channels else 0
                if kind == 1:
                    predictor = left
                elif kind == 3:
                    predictor = (left + up) >> 1
                elif kind == 4:
                    estimate = left + up - upper_left
                    distances = (abs(estimate - left), abs(estimate - up), abs(estimate - upper_left))
                    predictor = (left, up, upper_left)[distances.index(min(distances))]
                else:
                    raise ValueError(f"PNG row {y} has filter type {kind}; types 0-4 exist")
                current[x] = (line[x] + predictor) & 0xFF
        out[y] = current
        previous = current
    return out


def decode_png(data: bytes) -> np.ndarray:
    """The uint8 ``[height, width, channels]`` pixels of an 8-bit, non-interlaced PNG.

    Raises:
        ValueError: for bytes that are not such a PNG, or a chunk whose CRC does not match.
    """
    if data[:len(PNG_SIGNATURE)] != PNG_SIGNATURE:
        raise ValueError("not a PNG: the signature is missing")
    offset, header, compressed = len(PNG_SIGNATURE), None, []
    while offset < len(data):
        length, kind = _CHUNK_HEAD.unpack_from(data, offset)
        body = data[offset + _CHUNK_HEAD.size:offset + _CHUNK_HEAD.size + length]
        (stored,) = _CRC.unpack_from(data, offset + _CHUNK_HEAD.size + length)
        if zlib.crc32(kind + body) != stored:
            raise ValueError(f"PNG chunk {kind!r} at offset {offset} has a bad CRC")
        if kind == b"IHDR":
            header = _IHDR.unpack(body)
        elif kind == b"IDAT":
            compressed.append(body)
        elif kind == b"IEND":
            break
        offset += _CHUNK_HEAD.size + length + _CRC.size
    if header is None:
        raise ValueError("not a PNG: no IHDR chunk")
    width, height, depth, colour_type, _, _, interlace = header
    if depth != _BIT_DEPTH or interlace != 0 or colour_type not in _CHANNELS:
        raise ValueError(f"only 8-bit non-interlaced grey/RGB(A) PNGs are read, got depth {depth}, colour type "
                         f"{colour_type}, interlace {interlace}")
    channels = _CHANNELS[colour_type]
    rows = np.frombuffer(zlib.decompress(b"".join(compressed)), dtype=np.uint8)
    rows = rows[:height * (1 + width * channels)].reshape(height, 1 + width * channels)
    return _unfilter(rows, channels).reshape(height, width, channels)
