"""Readers: TFRecord, TextLine, FixedLengthRecord, WholeFile and Identity readers, their V2 ops and kernels.

A reader op (``TFRecordReaderV2``, ...) outputs a resource handle whose value in a Session is that
session's `ReaderState`.  ``ReaderReadV2(reader, queue)`` returns the next (key, value) record, taking a
new *work unit* (a file name) from the string queue when the current one is used up, as TF's ReaderBase
does; the queue's OutOfRangeError ends reading once it is closed and empty.  Keys are TF's:

    TFRecordReader   "<file>:<byte offset of the record in the uncompressed stream>"
    TextLineReader   "<file>:<line number from 1>"  (after skip_header_lines; "\\n" and "\\r\\n" end a line)
    FixedLengthRecordReader  "<file>:<record number from 0>"  (record i: record_bytes at header + i * hop,
                     read only while record_bytes + footer_bytes remain there; hop 0 means record_bytes)
    WholeFileReader  "<file>" (value: the whole file)        IdentityReader  "<work>" (value: the same)

A TFRecord or text work unit is finished when a read finds it exhausted (so after its last record
``num_work_units_completed`` grows only at the next read); a whole-file or identity unit as it is read.
``ReaderReadUpToV2`` returns up to n records, stopping at the end of a work unit that gave some.
"""

from __future__ import annotations

import threading

import numpy as np

from graph import errors
from graph.base import dtypes as dtypes_lib
from graph.base import kernels
from graph.base.shapes import TensorShape
from graph.core import graph as graph_lib
from graph.core.graph import Tensor, convert_to_tensor
from graph.ops import constant_ops
from graph.ops.queue_ops import queue_state
from graph.ops.queue_state import next_resource_id
from graph.platform import file_io
from graph.platform.tfrecord import FOOTER_SIZE, HEADER_SIZE, iterate_records
from graph.platform.tfrecord_io import TFRecordOptions, decompress

__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader", "WholeFileReader",
           "IdentityReader"]

_HANDLE = (dtypes_lib.resource, TensorShape([]))
_SCALAR_STRING = (dtypes_lib.string, TensorShape([]))
_SCALAR_INT64 = (dtypes_lib.int64, TensorShape([]))
_COMPRESSION_NAMES = {None: "", 0: "", 1: "ZLIB", 2: "GZIP"}


# ----------------------------------------------------------------- kernel state
def _tfrecords(op, work: str) -> list[tuple[bytes, bytes]]:
    data = decompress(file_io.read_bytes(work), op._attrs.get("compression_type") or "", work)
    records, offset = [], 0
    for body in iterate_records(data, work):
        records.append((f"{work}:{offset}".encode(), body))
        offset += HEADER_SIZE + len(body) + FOOTER_SIZE
    return records


def _text_lines(op, work: str) -> list[tuple[bytes, bytes]]:
    lines = file_io.read_bytes(work).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the text after the last newline, when there is none
    skip = int(op._attrs.get("skip_header_lines", 0))
    return [(f"{work}:{number}".encode(), line[:-1] if line.endswith(b"\r") else line)
            for number, line in enumerate(lines, start=1) if number > skip]


def _fixed_length_records(op, work: str) -> list[tuple[bytes, bytes]]:
    data = decompress(file_io.read_bytes(work), (op._attrs.get("encoding") or b"").decode(), work)
    header, size, footer = (int(op._attrs[name]) for name in ("header_bytes", "record_bytes", "footer_bytes"))
    hop = int(op._attrs.get("hop_bytes") or 0) or size
    records, start = [], header
    while start + size + footer <= len(data):  # TF reads record_bytes + footer_bytes ahead of each record
        records.append((f"{work}:{len(records)}".encode(), data[start:start + size]))
        start += hop
    return records


_RECORDS = {  # op type -> (records of one work unit, whether a unit ends as its last record is read)
    "TFRecordReaderV2": (_tfrecords, False),
    "TextLineReaderV2": (_text_lines, False),
    "FixedLengthRecordReaderV2": (_fixed_length_records, False),
    "WholeFileReaderV2": (lambda op, work: [(work.encode(), file_io.read_bytes(work))], True),
    "IdentityReaderV2": (lambda op, work: [(work.encode(), work.encode())], True),
}


class ReaderState:
    """One reader in one session: its current work unit, its records and counters (TF's ReaderBase)."""

    def __init__(self, op):
        self.name = f"_{next_resource_id()}_{op.name}"
        self._records_of, self._eager_end = _RECORDS[op.type]
        self._op = op
        self._lock = threading.Lock()  # TF's ReaderBase holds its mutex for a whole read
        self.reset()

    def reset(self) -> None:
        """Forgets the current work unit and the counters (ReaderResetV2)."""
        self.work: str | None = None
        self.records: list = []
        self.position = 0
        self.produced = 0
        self.completed = 0

    def _start_work(self, op, queue) -> None:
        row = queue_state(op, queue).dequeue(op, None)[0]
        work = row[0] if len(row) == 1 else None
        if work is None or np.ndim(work) != 0 or not isinstance(work[()], bytes):
            raise errors.InvalidArgumentError(None, op, f"Expected to dequeue a one-element string tensor from "
                                              f"the work queue of reader {self.name}.")
        work = work[()].decode()
        self.records = self._records_of(self._op, work)  # file errors leave the reader without work
        self.work, self.position = work, 0

    def _finish_work(self) -> None:
        self.work, self.records, self.position = None, [], 0
        self.completed += 1

    def read(self, op, queue, limit: int) -> list[tuple[bytes, bytes]]:
        """Up to ``limit`` records (at least one), taking work units from ``queue`` as needed."""
        out: list = []
        with self._lock:
            while not out:
                if self.work is None:
                    self._start_work(op, queue)
                while len(out) < limit and self.position < len(self.records):
                    out.append(self.records[self.position])
                    self.position += 1
                if self.position >= len(self.records) and (len(out) < limit or self._eager_end):
                    self._finish_work()
            self.produced += len(out)
        return out


# ----------------------------------------------------------------- kernels
def _compute_reader(ctx, op, inputs):
    key = ("reader", op._attrs.get("shared_name") or op._name)
    state = ctx.op_state.get(key)
    if state is None:
        state = ctx.op_state.setdefault(key, ReaderState(op))
    return [state]


def _reader(op, handle) -> ReaderState:
    if not isinstance(handle, ReaderState):
        raise errors.InvalidArgumentError(None, op, f"'{op.name}' expects a reader handle as input 0, got "
                                          f"{type(handle).__name__}.")
    return handle


def _compute_read(ctx, op, inputs):
    (key, value), = _reader(op, inputs[0]).read(op, inputs[1], 1)
    return [np.array(key, dtype=object), np.array(value, dtype=object)]


def _compute_read_up_to(ctx, op, inputs):
    count = int(inputs[2])
    if count <= 0:
        raise errors.InvalidArgumentError(None, op, f"num_records must be positive, got {count}")
    records = _reader(op, inputs[0]).read(op, inputs[1], count)
    keys = np.empty(len(records), dtype=object)
    values = np.empty(len(records), dtype=object)
    keys[:], values[:] = [k for k, _ in records], [v for _, v in records]
    return [keys, values]


def _compute_reset(ctx, op, inputs):
    reader = _reader(op, inputs[0])
    with reader._lock:
        reader.reset()
    return []


_READER_ATTRS = {"container": "", "shared_name": ""}
for _op_type, _extra in (("TFRecordReaderV2", {"compression_type": ""}), ("TextLineReaderV2", {"skip_header_lines": 0}),
                         ("FixedLengthRecordReaderV2", {"header_bytes": 0, "footer_bytes": 0, "hop_bytes": 0,
                                                        "encoding": b""}),
                         ("WholeFileReaderV2", {}), ("IdentityReaderV2", {})):
    kernels.register(_op_type, infer=lambda op: [_HANDLE], compute=_compute_reader, stateful=True,
                     default_attrs=dict(_READER_ATTRS, **_extra))
kernels.register("ReaderReadV2", infer=lambda op: [_SCALAR_STRING, _SCALAR_STRING], compute=_compute_read,
                 stateful=True)
kernels.register("ReaderReadUpToV2", compute=_compute_read_up_to, stateful=True,
                 infer=lambda op: [(dtypes_lib.string, TensorShape([None]))] * 2)
kernels.register("ReaderNumRecordsProducedV2", infer=lambda op: [_SCALAR_INT64], stateful=True,
                 compute=lambda ctx, op, inputs: [np.int64(_reader(op, inputs[0]).produced)])
kernels.register("ReaderNumWorkUnitsCompletedV2", infer=lambda op: [_SCALAR_INT64], stateful=True,
                 compute=lambda ctx, op, inputs: [np.int64(_reader(op, inputs[0]).completed)])
kernels.register("ReaderResetV2", infer=lambda op: [], compute=_compute_reset, stateful=True)


# ----------------------------------------------------------------- builders
class ReaderBase:
    """Base class for readers: ops that read records from the work units (file names) of a string queue."""

    def __init__(self, reader_ref: Tensor, supports_serialize: bool = False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    reader_ref = property(lambda self: self._reader_ref, doc="Op that implements the reader.")
    supports_serialize = property(lambda self: self._supports_serialize, doc="Whether the reader serializes state.")

    def _op(self, op_type: str, inputs: list, name: str | None):
        return constant_ops._scoped_op(self._reader_ref.graph, op_type, [self._reader_ref] + inputs, name=name)

    @staticmethod
    def _queue_ref(queue) -> Tensor:
        return queue if isinstance(queue, Tensor) else queue.queue_ref

    def read(self, queue, name: str | None = None) -> tuple[Tensor, Tensor]:
        """The next record as scalar string tensors ``(key, value)``; file names come from ``queue``."""
        op = self._op("ReaderReadV2", [self._queue_ref(queue)], name)
        return op.outputs[0], op.outputs[1]

    def read_up_to(self, queue, num_records, name: str | None = None) -> tuple[Tensor, Tensor]:
        """Up to ``num_records`` records as 1-D string tensors ``(keys, values)``."""
        graph = self._reader_ref.graph
        with graph.as_default(), graph.name_scope(name or "ReaderReadUpToV2") as scope:
            count = convert_to_tensor(num_records, dtype=dtypes_lib.int64, name="num_records")
            op = graph.create_op("ReaderReadUpToV2", [self._reader_ref, self._queue_ref(queue), count], name=scope)
        return op.outputs[0], op.outputs[1]

    def num_records_produced(self, name: str | None = None) -> Tensor:
        """An int64 tensor: the records this reader has produced."""
        return self._op("ReaderNumRecordsProducedV2", [], name).outputs[0]

    def num_work_units_completed(self, name: str | None = None) -> Tensor:
        """An int64 tensor: the work units this reader has finished."""
        return self._op("ReaderNumWorkUnitsCompletedV2", [], name).outputs[0]

    def reset(self, name: str | None = None):
        """An op restoring the reader to its initial clean state."""
        return self._op("ReaderResetV2", [], name)


def _reader_op(op_type: str, name: str | None, attrs: dict) -> Tensor:
    return constant_ops._scoped_op(graph_lib.get_default_graph(), op_type, [], name=name,
                                   attrs=dict(_READER_ATTRS, **attrs)).outputs[0]


class TFRecordReader(ReaderBase):
    """A reader that outputs the records of TFRecord files (optionally ZLIB or GZIP compressed)."""

    def __init__(self, name: str | None = None, options=None):
        compression = options.compression_type if isinstance(options, TFRecordOptions) else options
        compression = _COMPRESSION_NAMES.get(compression, compression)
        super().__init__(_reader_op("TFRecordReaderV2", name, {"compression_type": str(compression).upper()}))


class TextLineReader(ReaderBase):
    """A reader that outputs the lines of files, without their newlines."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None):
        super().__init__(_reader_op("TextLineReaderV2", name, {"skip_header_lines": int(skip_header_lines or 0)}))


class FixedLengthRecordReader(ReaderBase):
    """A reader that outputs fixed-length records of files (after a header, before a footer)."""

    def __init__(self, record_bytes: int, header_bytes: int | None = None, footer_bytes: int | None = None,
                 hop_bytes: int | None = None, name: str | None = None, encoding: str | None = None):
        sizes = {"header_bytes": header_bytes or 0, "record_bytes": record_bytes, "footer_bytes": footer_bytes or 0,
                 "hop_bytes": hop_bytes or 0}
        for key, value in sizes.items():
            if int(value) < 0:  # TF's kernel checks these when the reader op first runs; ours at build time
                raise errors.InvalidArgumentError(None, None, f"{key} must be >= 0 not {int(value)}")
        super().__init__(_reader_op("FixedLengthRecordReaderV2", name, {
            **{key: int(value) for key, value in sizes.items()}, "encoding": (encoding or "").encode()}))


class WholeFileReader(ReaderBase):
    """A reader that outputs each file whole: key the file name, value its contents."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader_op("WholeFileReaderV2", name, {}), supports_serialize=True)


class IdentityReader(ReaderBase):
    """A reader that outputs each work unit as both key and value."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader_op("IdentityReaderV2", name, {}), supports_serialize=True)
