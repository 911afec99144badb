"""Huffman coding of JPEG scans (ITU-T T.81 F.1, G.1), byte for byte as libjpeg-turbo 2.1.4's jchuff.c
(sequential) and jcphuff.c (progressive), with jchuff.c jpeg_gen_optimal_table for optimized tables.

A scan is first turned into tokens, ``(table, symbol, bits, length)``: the Huffman ``symbol`` of table
``table`` (``"dc0"``, ``"ac1"``, ...; None for bare bits) followed by ``length`` raw ``bits``.  Counting the
symbols gives the optimal tables (libjpeg's statistics pass); writing them with code tables gives the entropy-
coded segment, padded with 1 bits to a byte and with every 0xFF byte followed by a stuffed 0x00.
"""

from __future__ import annotations

import collections

from graph.platform.jpeg_markers import ZIGZAG

__all__ = ["scan_tokens", "optimal_table", "write_tokens"]

_ZRL, _EOB = 0xF0, 0x00
_MAX_EOBRUN = 0x7FFF
_MAX_CORRECTION_BITS = 1000  # jcphuff.c MAX_CORR_BITS
_MAX_CODE_LENGTH = 32  # jchuff.c MAX_CLEN: the unlimited Huffman tree's depth bound
_NATURAL = ZIGZAG[:64]


def _bit_length(value: int) -> int:
    return value.bit_length()


def _sequential_block(tokens, zigzag, last_dc, dc, ac):
    """A block's DC difference and AC run/size tokens (jchuff.c encode_one_block)."""
    diff = zigzag[0] - last_dc
    size = _bit_length(abs(diff))
    tokens.append((dc, size, (diff - 1 if diff < 0 else diff) & ((1 << size) - 1), size))
    run = 0
    for k in range(1, 64):
        value = zigzag[k]
        if value == 0:
            run += 1
            continue
        while run > 15:
            tokens.append((ac, _ZRL, 0, 0))
            run -= 16
        size = _bit_length(abs(value))
        tokens.append((ac, (run << 4) | size, (value - 1 if value < 0 else value) & ((1 << size) - 1), size))
        run = 0
    if run:
        tokens.append((ac, _EOB, 0, 0))


class _Progressive:
    """jcphuff.c's state across one scan's blocks: the pending end-of-band run and its correction bits."""

    def __init__(self, tokens, ac):
        self.tokens, self.ac, self.eobrun, self.correction = tokens, ac, 0, []

    def emit_eobrun(self):
        if self.eobrun > 0:
            size = _bit_length(self.eobrun) - 1
            self.tokens.append((self.ac, size << 4, self.eobrun & ((1 << size) - 1), size))
            self.eobrun = 0
            self._emit_bits(self.correction)
            self.correction = []

    def _emit_bits(self, bits):
        self.tokens.extend((None, 0, bit, 1) for bit in bits)

    def ac_first(self, zigzag, ss, se, al):
        run = 0
        for k in range(ss, se + 1):
            value = zigzag[k]
            magnitude = abs(value) >> al
            if magnitude == 0:
                run += 1
                continue
            self.emit_eobrun()
            while run > 15:
                self.tokens.append((self.ac, _ZRL, 0, 0))
                run -= 16
            size = _bit_length(magnitude)
            bits = magnitude if value > 0 else ~magnitude & ((1 << size) - 1)
            self.tokens.append((self.ac, (run << 4) | size, bits, size))
            run = 0
        if run > 0:
            self.eobrun += 1
            if self.eobrun == _MAX_EOBRUN:
                self.emit_eobrun()

    def ac_refine(self, zigzag, ss, se, al):
        magnitudes = [abs(zigzag[k]) >> al for k in range(ss, se + 1)]
        end_of_band = -1
        for index, magnitude in enumerate(magnitudes):
            if magnitude == 1:
                end_of_band = index
        run, pending = 0, []  # pending: this block's correction bits not yet sent
        for index, magnitude in enumerate(magnitudes):
            if magnitude == 0:
                run += 1
                continue
            while run > 15 and index <= end_of_band:
                self.emit_eobrun()
                self.tokens.append((self.ac, _ZRL, 0, 0))
                run -= 16
                self._emit_bits(pending)
                pending = []
            if magnitude > 1:
                pending.append(magnitude & 1)
                continue
            self.emit_eobrun()
            self.tokens.append((self.ac, (run << 4) | 1, 1 if zigzag[ss + index] > 0 else 0, 1))
            self._emit_bits(pending)
            pending, run = [], 0
        if run > 0 or pending:
            self.eobrun += 1
            self.correction.extend(pending)
            if self.eobrun == _MAX_EOBRUN or len(self.correction) > _MAX_CORRECTION_BITS - 64 + 1:
                self.emit_eobrun()


def scan_tokens(blocks_by_mcu, scan, progressive: bool) -> list:
    """The tokens of one scan.

    Args:
        blocks_by_mcu: for each MCU, its blocks as ``(component position in the scan, 64 zig-zag
            coefficients)``.
        scan: ``(dc table numbers, ac table numbers, Ss, Se, Ah, Al)``, table numbers per scan component.
        progressive: code with jcphuff.c's procedures (else jchuff.c's sequential one).
    """
    dc_tables, ac_tables, ss, se, ah, al = scan
    tokens, last_dc = [], collections.defaultdict(int)
    if not progressive:
        for blocks in blocks_by_mcu:
            for position, zigzag in blocks:
                _sequential_block(tokens, zigzag, last_dc[position], f"dc{dc_tables[position]}",
                                  f"ac{ac_tables[position]}")
                last_dc[position] = zigzag[0]
        return tokens
    state = _Progressive(tokens, f"ac{ac_tables[0]}")
    for blocks in blocks_by_mcu:
        for position, zigzag in blocks:
            if ss == 0 and ah == 0:
                value = zigzag[0] >> al
                diff, last_dc[position] = value - last_dc[position], value
                size = _bit_length(abs(diff))
                tokens.append((f"dc{dc_tables[position]}", size, (diff - 1 if diff < 0 else diff) & ((1 << size) - 1),
                               size))
            elif ss == 0:
                tokens.append((None, 0, (zigzag[0] >> al) & 1, 1))
            elif ah == 0:
                state.ac_first(zigzag, ss, se, al)
            else:
                state.ac_refine(zigzag, ss, se, al)
    state.emit_eobrun()
    return tokens


def optimal_table(frequencies: dict) -> tuple:
    """The ``(counts, symbols)`` Huffman table jchuff.c jpeg_gen_optimal_table builds from symbol counts."""
    freq = [0] * 257
    for symbol, count in frequencies.items():
        freq[symbol] = count
    freq[256] = 1  # a reserved code point, so no real code is all ones
    codesize, others = [0] * 257, [-1] * 257
    while True:
        c1, c2, low1, low2 = -1, -1, None, None
        for i in range(257):  # smallest nonzero count, the larger symbol on ties
            if freq[i] and (low1 is None or freq[i] <= low1):
                low1, c1 = freq[i], i
        for i in range(257):
            if freq[i] and i != c1 and (low2 is None or freq[i] <= low2):
                low2, c2 = freq[i], i
        if c2 < 0:
            break
        freq[c1] += freq[c2]
        freq[c2] = 0
        codesize[c1] += 1
        while others[c1] >= 0:
            c1 = others[c1]
            codesize[c1] += 1
        others[c1] = c2
        codesize[c2] += 1
        while others[c2] >= 0:
            c2 = others[c2]
            codesize[c2] += 1
    bits = [0] * (_MAX_CODE_LENGTH + 1)
    for size in codesize:
        if size:
            bits[size] += 1
    for length in range(_MAX_CODE_LENGTH, 16, -1):  # fold codes over 16 bits into shorter ones (T.81 K.3)
        while bits[length] > 0:
            prefix = length - 2
            while bits[prefix] == 0:
                prefix -= 1
            bits[length] -= 2
            bits[length - 1] += 1
            bits[prefix + 1] += 2
            bits[prefix] -= 1
    longest = 16
    while bits[longest] == 0:
        longest -= 1
    bits[longest] -= 1  # drop the reserved code point
    symbols = bytes(s for size in range(1, _MAX_CODE_LENGTH + 1) for s in range(256) if codesize[s] == size)
    return tuple(bits[1:17]), symbols


def _codes(table) -> dict:
    """symbol -> (code, length) of a ``(counts, symbols)`` table (T.81 C.2 canonical codes)."""
    counts, symbols = table
    codes, code, position = {}, 0, 0
    for length, count in enumerate(counts, start=1):
        for _ in range(count):
            codes[symbols[position]] = (code, length)
            code, position = code + 1, position + 1
        code <<= 1
    return codes


def write_tokens(tokens, tables: dict) -> bytes:
    """The entropy-coded segment of ``tokens`` with ``tables`` (table name -> ``(counts, symbols)``)."""
    codes = {name: _codes(table) for name, table in tables.items()}
    out, accumulator, pending = bytearray(), 0, 0
    for table, symbol, bits, length in tokens:
        if table is not None:
            code, code_length = codes[table][symbol]
            accumulator = (accumulator << code_length) | code
            pending += code_length
        accumulator = (accumulator << length) | bits
        pending += length
        while pending >= 8:
            pending -= 8
            byte = (accumulator >> pending) & 0xFF
            out.append(byte)
            if byte == 0xFF:
                out.append(0)
        accumulator &= (1 << pending) - 1
    if pending:  # pad the last byte with 1 bits (jchuff.c flush_bits)
        byte = ((accumulator << (8 - pending)) | ((1 << (8 - pending)) - 1)) & 0xFF
        out.append(byte)
        if byte == 0xFF:
            out.append(0)
    return bytes(out)
