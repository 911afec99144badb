"""PNG encoding and decoding of 8-bit images with zlib (what the ImageSummary op writes), without an imaging library.

Layout (PNG specification, ISO/IEC 15948), every integer big-endian::

    signature : 8 bytes  89 50 4E 47 0D 0A 1A 0A
    chunk     : length uint32 '>I', type 4 ASCII bytes, data[length], crc uint32 '>I' = crc32(type + data)
    IHDR data : width uint32, height uint32, bit depth uint8 (8), colour type uint8 (0 grey, 4 grey+alpha,
                2 RGB, 6 RGBA), compression uint8 (0), filter method uint8 (0), interlace uint8 (0)
    IDAT data : zlib stream of the rows, each row a filter-type byte then width * channels samples
    IEND data : empty

The encoder writes the bytes TensorFlow's writes (``core/lib/png/png_io.cc`` over libpng 1.6): each row's
filter is libpng's adaptive choice (``png_write_find_filter``: the filter whose bytes, read as signed, have
the smallest sum of magnitudes; None, Sub, Up, Average, Paeth in that order, a later one only when strictly
smaller; a single row or column rules some out); the rows are deflated with TensorFlow's level, memLevel 9,
libpng's strategy and the window libpng shrinks to the image (``png_deflate_claim``), whose header libpng
then rewrites (``optimize_cmf``); the stream is cut into IDAT chunks of libpng's 8192-byte buffer.  Level 0
(stored blocks) is framed here as zlib frames it when libpng feeds it a row at a time.  The decoder reads
all five filter types.
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
_NONE, _SUB, _UP, _AVERAGE, _PAETH = range(5)  # PNG filter types (§9.2)
_ZBUF_SIZE = 8192  # libpng's PNG_ZBUF_SIZE: the deflate output buffer, so the size of every IDAT but the last
_MAX_MEM_LEVEL = 9  # png_io.cc: png_set_compression_mem_level(png_ptr, MAX_MEM_LEVEL)
_MAX_WINDOW_BITS = 15
_SMALL_IMAGE = 16384  # png_deflate_claim / optimize_cmf: images up to this many bytes get a smaller window
_ZLIB_LOOKAHEAD = 262  # zlib's MIN_LOOKAHEAD: deflate needs this much window beyond the data
_MAX_STORED = 65535  # the longest stored deflate block


def _chunk(kind: bytes, data: bytes) -> bytes:
    return _CHUNK_HEAD.pack(len(data), kind) + data + _CRC.pack(zlib.crc32(kind + data))


def _filtered_rows(image: np.ndarray) -> tuple[np.ndarray, bool]:
    """``[height, 1 + width * channels]`` rows, each filtered as libpng 1.6's ``png_write_find_filter`` does,
    and whether None was the only filter the image's shape allowed."""
    height, width, channels = image.shape
    data = image.reshape(height, width * channels).astype(np.int32)
    up = np.zeros_like(data)
    up[1:] = data[:-1]  # the first row's "previous row" is zeros
    left = np.zeros_like(data)
    left[:, channels:] = data[:, :-channels]
    upper_left = np.zeros_like(data)
    upper_left[:, channels:] = up[:, :-channels]
    estimate = left + up - upper_left
    distance_left, distance_up = np.abs(estimate - left), np.abs(estimate - up)
    distance_upper_left = np.abs(estimate - upper_left)
    paeth = np.where((distance_left <= distance_up) & (distance_left <= distance_upper_left), left,
                     np.where(distance_up <= distance_upper_left, up, upper_left))
    candidates = np.stack([data, data - left, data - up, data - ((left + up) >> 1), data - paeth]) & 0xFF
    cost = np.where(candidates < 128, candidates, 256 - candidates).sum(axis=2)  # [filter, row]
    # png_write_start_row: one row leaves nothing above, one column nothing to the left
    ruled_out = ([_UP, _AVERAGE, _PAETH] if height == 1 else []) + ([_SUB, _AVERAGE, _PAETH] if width == 1 else [])
    cost[ruled_out] = np.iinfo(cost.dtype).max
    best = np.argmin(cost, axis=0)  # the first smallest: a later filter must be strictly better
    rows = np.empty((height, 1 + width * channels), dtype=np.uint8)
    rows[:, 0] = best
    rows[:, 1:] = candidates[best, np.arange(height)]
    return rows, set(ruled_out) == {_SUB, _UP, _AVERAGE, _PAETH}


def _window_bits(data_size: int) -> int:
    """The deflate window libpng asks for (``png_deflate_claim``): the smallest that holds a small image."""
    window_bits = _MAX_WINDOW_BITS
    if data_size <= _SMALL_IMAGE:
        half_window = 1 << (window_bits - 1)
        while data_size + _ZLIB_LOOKAHEAD <= half_window:
            half_window >>= 1
            window_bits -= 1
    return max(window_bits, 9)  # zlib takes no 8-bit window for deflate


def _optimize_cmf(stream: bytearray, data_size: int) -> None:
    """libpng's ``optimize_cmf``: the zlib header claims the smallest window inflate needs for the data."""
    cmf = stream[0]
    if data_size > _SMALL_IMAGE or cmf & 0x0F != 8 or cmf & 0xF0 > 0x70:
        return
    cinfo = cmf >> 4
    half_window = 1 << (cinfo + 7)
    if data_size > half_window:
        return
    while True:
        half_window >>= 1
        cinfo -= 1
        if not (cinfo > 0 and data_size <= half_window):
            break
    stream[0] = cmf = (cmf & 0x0F) | (cinfo << 4)
    flags = stream[1] & 0xE0
    stream[1] = flags + 0x1F - ((cmf << 8) + flags) % 0x1F


def _stored_block_lengths(data_size: int, row_size: int, window_bits: int) -> list[int]:
    """The stored blocks zlib's ``deflate_stored`` (1.2.12+) cuts when libpng feeds it one row per call
    through an output buffer too small for a direct copy: the window fills and a block leaves it once it
    holds ``w_size`` bytes; ``Z_FINISH`` writes the rest as the last block (empty when nothing is left)."""
    w_size = 1 << window_bits
    window_size = 2 * w_size
    strstart = block_start = 0
    lengths = []
    for _ in range(data_size // row_size):
        avail_in = row_size
        while avail_in:
            room = window_size - strstart
            if avail_in > room and block_start >= w_size:  # slide the window down
                block_start -= w_size
                strstart -= w_size
                room += w_size
            taken = min(room, avail_in)
            strstart += taken
            avail_in -= taken
            if strstart - block_start >= w_size:
                length = min(strstart - block_start, _MAX_STORED)
                lengths.append(length)
                block_start += length
    lengths.append(strstart - block_start)
    return lengths


def _stored_stream(data: bytes, row_size: int, window_bits: int) -> bytes:
    """A level-0 zlib stream of ``data`` in the stored blocks zlib writes for libpng."""
    cmf = ((window_bits - 8) << 4) | 8
    flags = 0x1F - (cmf << 8) % 0x1F  # FLEVEL 0 (fastest), FCHECK
    parts, offset = [bytes((cmf, flags))], 0
    lengths = _stored_block_lengths(len(data), row_size, window_bits)
    for number, length in enumerate(lengths):
        last = number == len(lengths) - 1
        parts.append(struct.pack("<BHH", last, length, length ^ 0xFFFF) + data[offset:offset + length])
        offset += length
    parts.append(struct.pack(">I", zlib.adler32(data)))
    return b"".join(parts)


def encode_png(image: np.ndarray, compression: int = -1) -> bytes:
    """The PNG bytes TensorFlow writes for a uint8 ``[height, width, channels]`` image (channels 1 to 4).

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
    rows, unfiltered = _filtered_rows(image)
    data_size = rows.size
    window_bits = _window_bits(data_size)
    if compression == 0:
        stream = bytearray(_stored_stream(rows.tobytes(), rows.shape[1], window_bits))
    else:
        # libpng: Z_FILTERED while rows may be filtered, the default strategy when only None is possible
        strategy = zlib.Z_DEFAULT_STRATEGY if unfiltered else zlib.Z_FILTERED
        deflate = zlib.compressobj(compression, zlib.DEFLATED, window_bits, _MAX_MEM_LEVEL, strategy)
        stream = bytearray(deflate.compress(rows.tobytes()) + deflate.flush())
    _optimize_cmf(stream, data_size)
    header = _IHDR.pack(width, height, _BIT_DEPTH, _COLOUR_TYPE[channels], 0, 0, 0)
    idats = [_chunk(b"IDAT", bytes(stream[start:start + _ZBUF_SIZE])) for start in range(0, len(stream), _ZBUF_SIZE)]
    return b"".join((PNG_SIGNATURE, _chunk(b"IHDR", header), *idats, _chunk(b"IEND", b"")))


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
