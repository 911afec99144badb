"""The marker structure of a JPEG file (ITU-T T.81 Annex B): frame, tables, scans and their entropy-coded
segments, read as libjpeg-turbo 2.1.4 (TensorFlow's JPEG library) reads them.

Layout, every integer big-endian (``>``)::

    marker   : 0xFF, then a code byte (any number of 0xFF fill bytes may come before the code)
    SOI      : FFD8, no length                         EOI : FFD9          RSTn : FFD0-FFD7
    segment  : marker, length uint16 (counting itself), then length - 2 bytes
    SOFn     : precision uint8, height uint16, width uint16, count uint8,
               count * (id uint8, h << 4 | v uint8, quant table uint8)
    DQT      : repeated (precision << 4 | table uint8, 64 values uint8 or uint16 in zig-zag order)
    DHT      : repeated (class << 4 | table uint8, 16 code counts uint8, sum(counts) symbols uint8)
    DRI      : restart interval uint16 (MCUs)
    SOS      : count uint8, count * (id uint8, dc << 4 | ac uint8), Ss uint8, Se uint8, Ah << 4 | Al uint8,
               then the entropy-coded segment: bytes with 0xFF stuffed as FF00, split by RSTn markers
    APP0     : b"JFIF\\0" ...                 APP14 : b"Adobe" version uint16, flags0, flags1, transform uint8

Only Huffman-coded baseline, extended (SOF1) and progressive (SOF2) 8-bit frames are read; arithmetic-coded
frames (which libjpeg-turbo decodes) raise `JpegUnsupported`; anything libjpeg refuses (lossless frames,
12-bit data, unknown markers, malformed segments) raises `JpegError`.  A stream that ends before EOI is cut:
with ``recover_truncated`` it goes on as TensorFlow's source feeds libjpeg (a cut segment's own bytes again,
or fake EOI markers), otherwise it is an error.
"""

from __future__ import annotations

import dataclasses
import struct

from graph.platform import jpeg_tables

__all__ = ["JpegError", "JpegUnsupported", "Component", "Frame", "Scan", "JpegFile", "ZIGZAG", "parse_jpeg",
           "is_jpeg_start", "SOI"]

SOI = b"\xff\xd8"
_EOI, _SOS, _DHT, _DQT, _DRI, _APP0, _APP14 = 0xD9, 0xDA, 0xC4, 0xDB, 0xDD, 0xE0, 0xEE
_RST0, _RST7, _TEM = 0xD0, 0xD7, 0x01
_SEQUENTIAL_HUFFMAN = (0xC0, 0xC1)  # baseline, extended sequential
_PROGRESSIVE_HUFFMAN = 0xC2
_ARITHMETIC = (0xC9, 0xCA)  # libjpeg-turbo decodes these; not emulated
_OTHER_FRAMES = (0xC3, 0xC5, 0xC6, 0xC7, 0xCB, 0xCD, 0xCE, 0xCF)  # lossless / hierarchical: libjpeg refuses
_MAX_SAMPLING = 4  # T.81 B.2.2: sampling factors 1-4
_MAX_BLOCKS_IN_MCU = 10  # T.81 B.2.3, libjpeg's D_MAX_BLOCKS_IN_MCU
_U16 = struct.Struct(">H")
# codes jdmarker.c read_markers refuses ("Unsupported marker type"): all but SOFn, DHT, DAC, RSTn, SOI, EOI,
# SOS, DQT, DNL, DRI, APPn, COM and TEM
_UNKNOWN = frozenset(range(0x02, 0xC0)) | {0xC8, 0xDE, 0xDF} | frozenset(range(0xF0, 0xFE))
_FAKE_EOI = b"\xff\xd9"  # what TensorFlow's try_recover_truncated source hands libjpeg past the end
_READ_BYTEWISE = (*_SEQUENTIAL_HUFFMAN, _PROGRESSIVE_HUFFMAN, *_ARITHMETIC, *_OTHER_FRAMES, _DQT, _DHT, _DRI, _SOS)
# libjpeg-turbo's std_huff_tables: for sequential scans (jdhuff.c, not jdphuff.c), slots 0 and 1 hold T.81 K.3's
# tables until a DHT replaces them
_STANDARD_DC = {0: jpeg_tables.STANDARD_DC_LUMINANCE, 1: jpeg_tables.STANDARD_DC_CHROMINANCE}
_STANDARD_AC = {0: jpeg_tables.STANDARD_AC_LUMINANCE, 1: jpeg_tables.STANDARD_AC_CHROMINANCE}

# ZIGZAG[k] is the natural (row-major) index of the k-th coefficient in zig-zag order; indices past 63 map
# to 63, as libjpeg's jpeg_natural_order does, so corrupt run lengths stay inside the block.
ZIGZAG = (0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,
          7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31,
          39, 46, 53, 60, 61, 54, 47, 55, 62, 63) + (63,) * 16


class JpegError(ValueError):
    """Bytes that are not a JPEG stream libjpeg would decode."""


class JpegUnsupported(JpegError):
    """A valid JPEG of a kind this codec does not decode (arithmetic coding, CMYK, ...)."""


@dataclasses.dataclass
class Component:
    """One colour component of the frame, with its block geometry (libjpeg's jpeg_component_info)."""
    ident: int
    h: int
    v: int
    quant_index: int
    quant: tuple | None = None  # latched at the component's first scan, as libjpeg's latch_quant_tables
    width_in_blocks: int = 0
    height_in_blocks: int = 0


@dataclasses.dataclass(frozen=True)
class Frame:
    """The SOF segment: size, components, and whether scans are progressive."""
    marker: int
    height: int
    width: int
    components: tuple
    progressive: bool

    @property
    def max_h(self) -> int:
        return max(c.h for c in self.components)

    @property
    def max_v(self) -> int:
        return max(c.v for c in self.components)

    @property
    def mcus_per_row(self) -> int:
        return -(-self.width // (self.max_h * 8))

    @property
    def mcu_rows(self) -> int:
        return -(-self.height // (self.max_v * 8))


@dataclasses.dataclass(frozen=True)
class Scan:
    """One SOS: its components (indices into the frame), tables, spectral band, and its restart intervals'
    data, each destuffed and ending where its marker began."""
    components: tuple
    dc_tables: tuple
    ac_tables: tuple
    ss: int
    se: int
    ah: int
    al: int
    restart_interval: int
    segments: tuple
    truncated: bool = False  # the stream ended inside this scan's data (try_recover_truncated)
    lone_ff: bool = False  # ... with a 0xFF whose second byte is missing


@dataclasses.dataclass(frozen=True)
class JpegFile:
    """A parsed stream: the frame, the scans in order, and the colour-space hints of APP0 / APP14."""
    frame: Frame
    scans: tuple
    saw_jfif: bool
    adobe_transform: int | None


def is_jpeg_start(data: bytes) -> bool:
    """Whether ``data`` begins as TensorFlow's format sniffing takes a JPEG to begin (FF D8 FF)."""
    return data[:3] == b"\xff\xd8\xff"


def _entropy_segments(data: bytes, start: int, recover_truncated: bool):
    """The entropy-coded data after an SOS header: destuffed pieces between RSTn markers, the offset of the
    marker that ends it (or ``len(data)`` for a cut stream), and whether a cut stream ends in a lone 0xFF."""
    pieces, current, position, end = [], bytearray(), start, len(data)
    lone_ff = False
    while True:
        at = data.find(b"\xff", position)
        if at < 0:
            current += data[position:]
            break
        current += data[position:at]
        following = at + 1
        while following < end and data[following] == 0xFF:  # fill bytes: libjpeg skips them
            following += 1
        if following >= end:
            lone_ff = True
            break
        code = data[following]
        if code == 0:  # stuffed FF data byte
            current.append(0xFF)
            position = following + 1
        elif _RST0 <= code <= _RST7:
            pieces.append(bytes(current))
            current, position = bytearray(), following + 1
        else:
            pieces.append(bytes(current))
            return tuple(pieces), at, False
    if not recover_truncated:
        raise JpegError("Premature end of JPEG file")
    pieces.append(bytes(current))
    return tuple(pieces), end, lone_ff


def _cut_segment(data: bytes, offset: int) -> tuple:
    """A segment the stream is cut inside, as libjpeg reads it through TensorFlow's source: jdmarker.c keeps its
    position in locals for the whole segment, so when the bytes run out TensorFlow's source (seeing the bytes
    left when the segment began) hands back the segment's start and the same bytes are read again; a segment
    starting at the very end reads fake EOIs (FF D9) instead.  Returns the data extended by those bytes and
    the raw bytes the reader after it starts from (the rest of the cycle it stopped in)."""
    cycle = data[offset:] or _FAKE_EOI
    extended = bytearray(data)
    while len(extended) < offset + 2:
        extended += cycle
    consumed = _U16.unpack_from(extended, offset)[0]
    while len(extended) < offset + consumed:
        extended += cycle
    position = consumed % len(cycle)
    rest = cycle[position:] if position else b""
    return bytes(extended), rest


def _length(data: bytes, offset: int) -> int:
    return _U16.unpack_from(data, offset)[0] if offset + 2 <= len(data) else 2


def _segment(data: bytes, offset: int) -> bytes:
    if offset + 2 > len(data):
        raise JpegError("Premature end of JPEG file")
    (length,) = _U16.unpack_from(data, offset)
    if length < 2:
        raise JpegError(f"Bogus marker length {length} at offset {offset}")
    if offset + length > len(data):
        raise JpegError(f"Premature end of JPEG file: a {length}-byte segment at offset {offset}")
    return data[offset + 2:offset + length]


def _read_frame(marker: int, body: bytes) -> Frame:
    if len(body) < 6:
        raise JpegError("Bogus marker length")
    precision, height, width, count = struct.unpack_from(">BHHB", body)
    if precision != 8:
        raise JpegError(f"Unsupported JPEG data precision {precision}")
    if height == 0 or width == 0 or count == 0:
        raise JpegError("Empty JPEG image (DNL not supported)")
    if len(body) != 6 + 3 * count:
        raise JpegError("Bogus marker length")
    components = []
    for index in range(count):
        ident, sampling, quant_index = body[6 + 3 * index:9 + 3 * index]
        h, v = sampling >> 4, sampling & 15
        if not (1 <= h <= _MAX_SAMPLING and 1 <= v <= _MAX_SAMPLING) or quant_index > 3:
            raise JpegError("Bogus sampling factors")
        components.append(Component(ident, h, v, quant_index))
    frame = Frame(marker, height, width, tuple(components), marker == _PROGRESSIVE_HUFFMAN)
    for component in components:
        component.width_in_blocks = -(-width * component.h // (frame.max_h * 8))
        component.height_in_blocks = -(-height * component.v // (frame.max_v * 8))
    return frame


def _read_quant_tables(body: bytes, tables: dict) -> None:
    offset = 0
    while offset < len(body):
        precision, index = body[offset] >> 4, body[offset] & 15
        size = 128 if precision else 64
        if index > 3 or offset + 1 + size > len(body):
            raise JpegError(f"Bogus DQT index {index}")
        values = struct.unpack_from(">64H" if precision else "64B", body, offset + 1)
        natural = [0] * 64
        for k, value in enumerate(values):
            natural[ZIGZAG[k]] = value
        tables[index] = tuple(natural)
        offset += 1 + size


def _read_huffman_tables(body: bytes, dc_tables: dict, ac_tables: dict) -> None:
    offset = 0
    while offset < len(body):
        if offset + 17 > len(body):
            raise JpegError("Bogus DHT length")
        kind, index = body[offset] >> 4, body[offset] & 15
        counts = tuple(body[offset + 1:offset + 17])
        total = sum(counts)
        if total > 256 or offset + 17 + total > len(body) or index > 3 or kind > 1:
            raise JpegError("Bogus Huffman table definition")
        (ac_tables if kind else dc_tables)[index] = (counts, bytes(body[offset + 17:offset + 17 + total]))
        offset += 17 + total


def _read_scan(body: bytes, frame: Frame, quant_tables: dict, dc_tables: dict, ac_tables: dict):
    count = body[0] if body else 0
    if not 1 <= count <= 4 or len(body) != 4 + 2 * count:
        raise JpegError("Bogus marker length")
    indices, dc, ac = [], [], []
    idents = [c.ident for c in frame.components]
    for position in range(count):
        ident, tables = body[1 + 2 * position], body[2 + 2 * position]
        if ident not in idents or idents.index(ident) in indices:
            raise JpegError(f"Invalid component ID {ident} in SOS")
        indices.append(idents.index(ident))
        dc.append(tables >> 4)
        ac.append(tables & 15)
    ss, se, approximation = body[1 + 2 * count:4 + 2 * count]
    ah, al = approximation >> 4, approximation & 15
    # jdphuff.c start_pass_phuff_decoder's checks; a sequential scan's odd values are only a warning
    band_bad = (se != 0) if ss == 0 else (ss > se or se > 63 or count != 1)
    bad = frame.progressive and (band_bad or (ah != 0 and al != ah - 1) or al > 13)
    if bad:
        raise JpegError(f"Invalid progressive parameters Ss={ss} Se={se} Ah={ah} Al={al}")
    blocks = sum(frame.components[i].h * frame.components[i].v for i in indices) if count > 1 else 1
    if blocks > _MAX_BLOCKS_IN_MCU:
        raise JpegError("Sampling factors too large for interleaved scan")
    for index in indices:
        component = frame.components[index]
        if component.quant is None:
            if component.quant_index not in quant_tables:
                raise JpegError(f"Quantization table 0x{component.quant_index:02x} was not defined")
            component.quant = quant_tables[component.quant_index]
    standard_dc, standard_ac = ({}, {}) if frame.progressive else (_STANDARD_DC, _STANDARD_AC)
    return (tuple(indices), tuple(dc_tables.get(t, standard_dc.get(t)) for t in dc),
            tuple(ac_tables.get(t, standard_ac.get(t)) for t in ac), (ss, se, ah, al))


def parse_jpeg(data: bytes, recover_truncated: bool = False, headers_only: bool = False) -> JpegFile:
    """The frame and scans of the JPEG stream ``data``.

    Args:
        data: the file's bytes.
        recover_truncated: end a stream cut before EOI as if EOI followed (TensorFlow's try_recover_truncated).
        headers_only: stop at the first SOS (enough for the image's size).

    Raises:
        JpegError: for bytes libjpeg refuses (its message); JpegUnsupported for frames not decoded here.
    """
    if len(data) < 2 or data[0] != 0xFF or data[1] != 0xD8:
        raise JpegError(f"Not a JPEG file: starts with 0x{data[0] if data else 0:02x} "
                        f"0x{data[1] if len(data) > 1 else 0:02x}")
    frame, scans, quant_tables, dc_tables, ac_tables = None, [], {}, {}, {}
    restart_interval, saw_jfif, adobe_transform, offset = 0, False, None, 2
    rest = None  # once the stream is cut inside a segment: the bytes left for whatever reads next
    while True:
        at = data.find(b"\xff", offset)  # bytes before a marker are garbage libjpeg warns of and skips
        while 0 <= at < len(data) - 1 and data[at + 1] == 0xFF:
            at += 1
        if at < 0 or at + 1 >= len(data):
            if recover_truncated and frame is not None and scans:
                break
            raise JpegError("Premature end of JPEG file" if frame is not None else "Not a JPEG file")
        code, offset = data[at + 1], at + 2
        if code == 0:  # FF 00 is no marker: jdmarker.c next_marker skips it as garbage too
            continue
        if code == _EOI:
            break
        if code == 0xD8:
            raise JpegError("Invalid JPEG file structure: two SOI markers")
        if _RST0 <= code <= _RST7 or code == _TEM:
            continue
        if code in _UNKNOWN:
            raise JpegError(f"Unsupported marker type 0x{code:02x}")
        if recover_truncated and offset + 2 + _length(data, offset) > len(data):
            if code not in _READ_BYTEWISE:  # libjpeg skips it; the skip runs into the fake EOI: the end
                body = data[offset + 2:]
                offset = len(data)
                saw_jfif = saw_jfif or (code == _APP0 and body[:5] == b"JFIF\0" and len(body) >= 14)
                continue
            data, rest = _cut_segment(data, offset)
        if code not in _READ_BYTEWISE and offset + 2 <= len(data) and _length(data, offset) < 2:
            offset += 2  # a skipped segment's length under 2 skips nothing (jdmarker.c skip_variable)
            continue
        body = _segment(data, offset)
        offset += 2 + len(body)
        if code in _SEQUENTIAL_HUFFMAN or code == _PROGRESSIVE_HUFFMAN:
            if frame is not None:
                raise JpegError("Invalid JPEG file structure: two SOF markers")
            frame = _read_frame(code, body)
        elif code in _ARITHMETIC:
            raise JpegUnsupported("Arithmetic-coded JPEG images are not decoded here")
        elif code in _OTHER_FRAMES:
            raise JpegError(f"Unsupported JPEG process: SOF type 0x{code:02x}")
        elif code == _DQT:
            _read_quant_tables(body, quant_tables)
        elif code == _DHT:
            _read_huffman_tables(body, dc_tables, ac_tables)
        elif code == _DRI:
            if len(body) != 2:
                raise JpegError("Bogus marker length")
            (restart_interval,) = _U16.unpack(body)
        elif code == _APP0:
            saw_jfif = saw_jfif or body[:5] == b"JFIF\0"
        elif code == _APP14 and body[:5] == b"Adobe" and len(body) >= 12:
            adobe_transform = body[11]
        elif code == _SOS:
            if frame is None:
                raise JpegError("Invalid JPEG file structure: SOS before SOF")
            if headers_only:
                return JpegFile(frame, (), saw_jfif, adobe_transform)
            indices, dc, ac, (ss, se, ah, al) = _read_scan(body, frame, quant_tables, dc_tables, ac_tables)
            if rest is not None:  # the header was cut: the scan reads the bytes left of the re-read cycle
                scans.append(Scan(indices, dc, ac, ss, se, ah, al, restart_interval,
                                  (rest.replace(b"\xff\x00", b"\xff"),), True))
                break
            segments, offset, lone_ff = _entropy_segments(data, offset, recover_truncated)
            scans.append(Scan(indices, dc, ac, ss, se, ah, al, restart_interval, segments, offset >= len(data),
                              lone_ff))
            if offset >= len(data):
                break
    if frame is None or not scans:
        raise JpegError("Improper call to JPEG library: no image in the stream")
    return JpegFile(frame, tuple(scans), saw_jfif, adobe_transform)
