"""``tf.python_io``: TFRecordWriter, tf_record_iterator and the compression options of TFRecord files.

A compressed TFRecord file is the uncompressed file (graph/platform/tfrecord.py framing) run through
zlib's deflate as one stream (core/lib/io/zlib_outputbuffer.cc), with ZlibCompressionOptions' defaults
(core/lib/io/zlib_compression_options.h)::

    compression_level    : Z_DEFAULT_COMPRESSION (-1)
    compression_method   : Z_DEFLATED (8)
    window_bits          : MAX_WBITS (15): a zlib header;  GZIP: MAX_WBITS + 16: a gzip header (mtime 0)
    mem_level            : 9
    compression_strategy : Z_DEFAULT_STRATEGY (0)
    flush_mode           : Z_NO_FLUSH while writing, Z_FINISH at close; ``flush()`` is Z_SYNC_FLUSH

Deflate's output does not depend on how its input is split while nothing is flushed, so a file closed
without ``flush()`` calls is byte-identical to TensorFlow's for the same records and options.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

from graph import errors
from graph.platform import file_io
from graph.platform.tfrecord import encode_record, iterate_records

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator", "decompress"]

_MEM_LEVEL = 9  # ZlibCompressionOptions::mem_level
_GZIP_WINDOW_OFFSET = 16  # zlib: window_bits + 16 writes a gzip wrapper


class TFRecordCompressionType:
    """The compression of a TFRecord file (``tf.python_io.TFRecordCompressionType``)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {"": TFRecordCompressionType.NONE, "NONE": TFRecordCompressionType.NONE,
          "ZLIB": TFRecordCompressionType.ZLIB, "GZIP": TFRecordCompressionType.GZIP}
_STRINGS = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
            TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """Options of a TFRecord file: compression type and zlib's parameters (``tf.io.TFRecordOptions``)."""

    compression_type_map = {value: key for key, value in _STRINGS.items()}

    def __init__(self, compression_type=None, flush_mode: int | None = None, input_buffer_size: int | None = None,
                 output_buffer_size: int | None = None, window_bits: int | None = None,
                 compression_level: int | None = None, compression_method: int | None = None,
                 mem_level: int | None = None, compression_strategy: int | None = None):
        """Options as TensorFlow names them; None keeps zlib's default (see the module docstring).

        Raises:
            ValueError: for an unknown compression type.
        """
        self.compression_type = _STRINGS[_compression_code(compression_type)] if compression_type is not None \
            else ""
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        """'' / 'ZLIB' / 'GZIP' for options, a compression type or its name."""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return _STRINGS[_compression_code(options)]

    def _compressor(self):
        code = _compression_code(self.compression_type)
        if code == TFRecordCompressionType.NONE:
            return None
        window_bits = self.window_bits if self.window_bits is not None else zlib.MAX_WBITS
        if code == TFRecordCompressionType.GZIP:
            window_bits += _GZIP_WINDOW_OFFSET
        return zlib.compressobj(
            self.compression_level if self.compression_level is not None else zlib.Z_DEFAULT_COMPRESSION,
            self.compression_method if self.compression_method is not None else zlib.DEFLATED,
            window_bits, self.mem_level if self.mem_level is not None else _MEM_LEVEL,
            self.compression_strategy if self.compression_strategy is not None else zlib.Z_DEFAULT_STRATEGY)


def _compression_code(value) -> int:
    if value is None:
        return TFRecordCompressionType.NONE
    if isinstance(value, TFRecordOptions):
        return _NAMES[value.compression_type]
    if isinstance(value, str):
        if value.upper() not in _NAMES:
            raise ValueError(f"Unsupported compression type: {value!r} (expected '', 'ZLIB' or 'GZIP').")
        return _NAMES[value.upper()]
    if value not in _STRINGS:
        raise ValueError(f"Unsupported compression type: {value!r}.")
    return int(value)


def _options(options) -> TFRecordOptions:
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(options)


class TFRecordWriter:
    """Writes records to a TFRecord file, optionally compressed (``tf.python_io.TFRecordWriter``)."""

    def __init__(self, path: str, options=None):
        """Opens ``path`` for writing (truncating it); ``options`` is TFRecordOptions or a compression type.

        Raises:
            NotFoundError and the like: if the file cannot be created.
        """
        self._path = path
        self._compressor = _options(options)._compressor()
        self._file = file_io.open_writable(path)

    def _check_open(self) -> None:
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")

    def write(self, record: bytes) -> None:
        """Appends one record holding ``record`` (bytes)."""
        self._check_open()
        framed = encode_record(bytes(record))
        self._file.write(self._compressor.compress(framed) if self._compressor is not None else framed)

    def flush(self) -> None:
        """Pushes the records written so far to the file (a compressed stream is sync-flushed)."""
        self._check_open()
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Finishes the compressed stream, if any, and closes the file."""
        if self._file is None:
            return
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def decompress(data: bytes, compression_type, name: str) -> bytes:
    """The uncompressed TFRecord bytes of a file's contents ``data``.

    Raises:
        DataLossError: naming the file, if the stream is not valid zlib / gzip data.
    """
    code = _compression_code(compression_type)
    if code == TFRecordCompressionType.NONE:
        return data
    window_bits = zlib.MAX_WBITS + (_GZIP_WINDOW_OFFSET if code == TFRecordCompressionType.GZIP else 0)
    try:
        return zlib.decompress(data, window_bits)
    except zlib.error as error:
        raise errors.DataLossError(None, None, f"{name}: not a valid {_STRINGS[code]} stream: {error}") from error


def tf_record_iterator(path: str, options=None) -> Iterator[bytes]:
    """The records of the TFRecord file at ``path`` (``tf.python_io.tf_record_iterator``).

    Raises:
        NotFoundError: if the file does not exist; DataLossError for a damaged record or stream.
    """
    data = file_io.read_bytes(path)
    return iterate_records(decompress(data, options if not isinstance(options, TFRecordOptions)
                                      else options.compression_type, path), path)
