"""JPEG encoding, byte for byte as TensorFlow's ``jpeg::Compress`` (core/lib/jpeg/jpeg_mem.cc) over libjpeg-turbo
2.1.4: ``jpeg_set_defaults``, the JFIF density, ``jpeg_set_quality(quality, force_baseline=TRUE)``, optional
``jpeg_simple_progression`` and chroma subsampling off.

File layout written (markers as in `jpeg_markers`)::

    SOI, APP0 "JFIF\\0" version 1.01 / density unit / x / y density / no thumbnail,
    [APP1 "http://ns.adobe.com/xap/1.0/\\0" + XMP], DQT per table (8-bit), SOF0 (SOF2 when progressive),
    per scan: DHT for the tables it uses (once each), SOS, entropy-coded data; EOI

Components: grey is one component (id 1, 1x1, tables 0); colour is Y, Cb, Cr (ids 1, 2, 3; Y sampled 2x2 when
chroma is downsampled; tables 0 for Y, 1 for chroma).  Baseline codes with T.81's tables unless optimized;
progressive scans (libjpeg's script) always carry optimal tables, one set per scan.
"""

from __future__ import annotations

import collections
import struct

import numpy as np

from graph.platform import jpeg_color, jpeg_forward, jpeg_huffman_encoder, jpeg_sampling, jpeg_tables
from graph.platform.jpeg_markers import ZIGZAG

__all__ = ["encode_jpeg", "XMP_NAMESPACE"]

XMP_NAMESPACE = b"http://ns.adobe.com/xap/1.0/\0"
_SOI, _EOI = b"\xff\xd8", b"\xff\xd9"
_APP0, _APP1, _DQT, _SOF0, _SOF2, _DHT, _SOS = 0xE0, 0xE1, 0xDB, 0xC0, 0xC2, 0xC4, 0xDA
_JFIF_VERSION = (1, 1)
_MAX_MARKER_DATA = 65533  # jcapimin.c jpeg_write_marker's limit
_ZIGZAG = np.array(ZIGZAG[:64])

# jcparam.c jpeg_simple_progression: (component indices, Ss, Se, Ah, Al)
_YCC_PROGRESSION = (((0, 1, 2), 0, 0, 0, 1), ((0,), 1, 5, 0, 2), ((2,), 1, 63, 0, 1), ((1,), 1, 63, 0, 1),
                    ((0,), 6, 63, 0, 2), ((0,), 1, 63, 2, 1), ((0, 1, 2), 0, 0, 1, 0), ((2,), 1, 63, 1, 0),
                    ((1,), 1, 63, 1, 0), ((0,), 1, 63, 1, 0))
_GRAY_PROGRESSION = (((0,), 0, 0, 0, 1), ((0,), 1, 5, 0, 2), ((0,), 6, 63, 0, 2), ((0,), 1, 63, 2, 1),
                     ((0,), 0, 0, 1, 0), ((0,), 1, 63, 1, 0))
_STANDARD_TABLES = {"dc0": jpeg_tables.STANDARD_DC_LUMINANCE, "ac0": jpeg_tables.STANDARD_AC_LUMINANCE,
                    "dc1": jpeg_tables.STANDARD_DC_CHROMINANCE, "ac1": jpeg_tables.STANDARD_AC_CHROMINANCE}


def _marker(code: int, body: bytes) -> bytes:
    return struct.pack(">BBH", 0xFF, code, len(body) + 2) + body


def _component_grid(plane: np.ndarray, frame: dict, h: int, v: int, quant) -> np.ndarray:
    """A component's quantized zig-zag coefficients on its MCU-padded block grid ``[rows, columns, 64]``,
    dummy blocks holding the DC of the block libjpeg copies it from (jccoefct.c)."""
    height, width, max_h, max_v = frame["height"], frame["width"], frame["max_h"], frame["max_v"]
    across, down = max_h // h, max_v // v
    blocks_wide = -(-(-(-width * h // max_h)) // 8)
    blocks_high = -(-(-(-height * v // max_v)) // 8)
    padded = jpeg_sampling.pad_plane(plane, -(-height // max_v) * max_v, blocks_wide * 8 * across)
    small = jpeg_sampling.downsample(padded, across, down)
    small = jpeg_sampling.pad_plane(small, blocks_high * 8, blocks_wide * 8)
    blocks = small.reshape(blocks_high, 8, blocks_wide, 8).transpose(0, 2, 1, 3).reshape(-1, 8, 8)
    coefficients = jpeg_forward.quantize(jpeg_forward.forward_dct(blocks), quant).reshape(-1, 64)
    real = coefficients[:, _ZIGZAG].reshape(blocks_high, blocks_wide, 64)
    rows, columns = frame["mcu_rows"] * v, frame["mcus_per_row"] * h
    grid = np.zeros((rows, columns, 64), dtype=np.int32)
    grid[:blocks_high, :blocks_wide] = real
    grid[:blocks_high, blocks_wide:, 0] = real[:, -1:, 0]
    for row in range(blocks_high, rows):  # each MCU's dummy rows take the DC of its last block above
        grid[row, :, 0] = np.repeat(grid[row - 1, h - 1::h, 0], h)
    return grid, blocks_high, blocks_wide


def _mcus(scan_components, grids, sampling, frame):
    """Each MCU's blocks ``(scan position, zig-zag list)`` in scan order (interleaved or one component)."""
    if len(scan_components) == 1:
        grid, blocks_high, blocks_wide = grids[scan_components[0]]
        rows = grid[:blocks_high, :blocks_wide].tolist()
        return [[(0, block)] for row in rows for block in row]
    lists = [grids[c][0].tolist() for c in scan_components]
    mcus = []
    for mcu_row in range(frame["mcu_rows"]):
        for mcu_column in range(frame["mcus_per_row"]):
            blocks = []
            for position, component in enumerate(scan_components):
                h, v = sampling[component]
                for y in range(v):
                    row = lists[position][mcu_row * v + y]
                    blocks.extend((position, row[mcu_column * h + x]) for x in range(h))
            mcus.append(blocks)
    return mcus


def _table_counts(tokens) -> dict:
    counts = collections.defaultdict(collections.Counter)
    for table, symbol, _, _ in tokens:
        if table is not None:
            counts[table][symbol] += 1
    return counts


def _dht(tables_in_order, tables) -> bytes:
    out = b""
    for name in tables_in_order:
        counts, symbols = tables[name]
        kind = 0 if name.startswith("dc") else 1
        out += _marker(_DHT, bytes([kind << 4 | int(name[2:])]) + bytes(counts) + symbols)
    return out


def encode_jpeg(image: np.ndarray, quality: int = 95, progressive: bool = False, optimize_size: bool = False,
                chroma_downsampling: bool = True, density_unit: int = 1, x_density: int = 300,
                y_density: int = 300, xmp_metadata: bytes = b"", luma_sampling: tuple = (2, 2)) -> bytes:
    """The JPEG file TensorFlow's EncodeJpeg writes for a uint8 ``[height, width, 1 or 3]`` image.

    Args:
        image: the pixels (grey or RGB).
        quality: 0-100, libjpeg's quality scaling of the T.81 tables.
        progressive: libjpeg's simple progression script (with optimized tables).
        optimize_size: optimal Huffman tables for the baseline scan.
        chroma_downsampling: store Cb and Cr at half size both ways (4:2:0).
        density_unit: 1 (dots per inch) or 2 (per cm); x_density, y_density: the JFIF density.
        xmp_metadata: XMP written in an APP1 segment, if not empty.
        luma_sampling: Y's (horizontal, vertical) factors when chroma is downsampled: TensorFlow's (2, 2), or
            (2, 1) / (1, 2) for 4:2:2 / 4:4:0 streams, which TensorFlow never writes (no byte-exactness claimed).

    Raises:
        ValueError: for an image of another shape or type, or XMP too long for a marker.
    """
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in (1, 3) or 0 in image.shape:
        raise ValueError(f"encode_jpeg needs a non-empty uint8 [height, width, 1 or 3] image, got {image.dtype} "
                         f"{list(image.shape)}")
    height, width, channels = image.shape
    planes = [image[..., 0].astype(np.int32)] if channels == 1 else list(jpeg_color.rgb_to_ycc(image))
    if tuple(luma_sampling) not in ((2, 2), (2, 1), (1, 2)):
        raise ValueError(f"luma_sampling must be (2, 2), (2, 1) or (1, 2), got {luma_sampling}")
    sampling = [tuple(luma_sampling) if (channels == 3 and chroma_downsampling and i == 0) else (1, 1)
                for i in range(channels)]
    max_h, max_v = max(h for h, _ in sampling), max(v for _, v in sampling)
    frame = {"height": height, "width": width, "max_h": max_h, "max_v": max_v,
             "mcus_per_row": -(-width // (8 * max_h)), "mcu_rows": -(-height // (8 * max_v))}
    quant = jpeg_forward.quality_tables(quality)
    table_of = [0] + [1] * (channels - 1)
    grids = [_component_grid(planes[i], frame, *sampling[i], quant[table_of[i]]) for i in range(channels)]
    header = _SOI + _marker(_APP0, b"JFIF\0" + struct.pack(">BBBHHBB", *_JFIF_VERSION, density_unit,
                                                             x_density & 0xFFFF, y_density & 0xFFFF, 0, 0))
    if xmp_metadata:
        if len(XMP_NAMESPACE) + len(xmp_metadata) > _MAX_MARKER_DATA:
            raise ValueError("XMP metadata too long for a JPEG APP1 marker")
        header += _marker(_APP1, XMP_NAMESPACE + bytes(xmp_metadata))
    for index in sorted(set(table_of)):
        header += _marker(_DQT, bytes([index]) + bytes(quant[index][z] for z in ZIGZAG[:64]))
    components = b"".join(bytes([i + 1, sampling[i][0] << 4 | sampling[i][1], table_of[i]]) for i in range(channels))
    header += _marker(_SOF2 if progressive else _SOF0, struct.pack(">BHHB", 8, height, width, channels) + components)
    script = ((_YCC_PROGRESSION if channels == 3 else _GRAY_PROGRESSION) if progressive
              else ((tuple(range(channels)), 0, 63, 0, 0),))
    body = b""
    for scan_components, ss, se, ah, al in script:
        numbers = [table_of[c] for c in scan_components]
        tokens = jpeg_huffman_encoder.scan_tokens(_mcus(scan_components, grids, sampling, frame),
                                                  (numbers, numbers, ss, se, ah, al), progressive)
        used = []  # write_scan_header's order: each component's DC then AC table, each once
        for number in numbers:
            for name, wanted in ((f"dc{number}", ss == 0 and ah == 0), (f"ac{number}", se > 0)):
                if wanted and name not in used:
                    used.append(name)
        if progressive or optimize_size:
            counts = _table_counts(tokens)
            tables = {name: jpeg_huffman_encoder.optimal_table(counts[name]) for name in used}
        else:
            tables = _STANDARD_TABLES
        sos = bytes([len(scan_components)]) + b"".join(  # jcmarker.c emit_sos: 0 for a table not used
            bytes([c + 1, (table_of[c] if ss == 0 and ah == 0 else 0) << 4 | (table_of[c] if se else 0)])
            for c in scan_components) + bytes([ss, se, ah << 4 | al])
        body += _dht(used, tables)
        body += _marker(_SOS, sos) + jpeg_huffman_encoder.write_tokens(tokens, tables)
    return header + body + _EOI
