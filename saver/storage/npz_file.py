"""The ``.npz`` container (a zip of ``.npy`` members), written and read without pickling.

Members are written with ``allow_pickle=False`` as they come (an iterator: nothing is held back), and
read through :func:`members`, which checks each member's ``.npy`` header against the member's size
before allocating anything, refuses object arrays, and reads the member in chunks into its one
buffer (the array is a view of it: importing peaks at about one copy of the largest member).  This module knows names and arrays only; what
they mean is saver/storage/export.py's.
"""

from __future__ import annotations

import contextlib
import math
import struct
import tokenize
import zipfile
import zlib
from typing import BinaryIO
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from graph.errors import DataLossError, UnimplementedError
from graph.platform import file_io
from saver.format.bundle_stream import StreamedArray

__all__ = ["NATIVE", "write", "members"]

NATIVE = frozenset(("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                    "float16", "float32", "float64", "complex64", "complex128"))
# Errors zipfile, zlib and numpy's .npy header parser raise for a damaged archive (the file itself is
# already open, so OSError here is a bad seek or read inside it).
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError,
               ValueError, struct.error, OSError, tokenize.TokenError, SyntaxError)
_CHUNK = 1 << 22  # 4 MiB per read: memory beyond the member's own buffer stays this small
_NPY_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


def write(file: BinaryIO, arrays: Iterable[tuple[str, np.ndarray]], compress: bool = False) -> None:
    """Writes each ``(name, array)`` as member ``<name>.npy`` of a zip archive in the open binary file."""
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(file, "w", compression=mode, allowZip64=True) as archive:
        for name, array in arrays:
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                if isinstance(array, StreamedArray):  # header as write_array's, then the values chunk by chunk
                    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False,
                              "shape": array.shape}
                    try:
                        np.lib.format.write_array_header_1_0(member, header)
                    except ValueError:  # too long for version 1.0
                        np.lib.format.write_array_header_2_0(member, header)
                    for chunk in array.chunks():
                        member.write(chunk.view(np.uint8).data)
                else:
                    np.lib.format.write_array(member, array, allow_pickle=False)


def _member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: str) -> np.ndarray:
    """One ``.npy`` member, its header checked against the member's size before anything is allocated."""
    where = f"{path}: member {info.filename!r}"
    try:
        with archive.open(info) as member:
            version = np.lib.format.read_magic(member)
            if version not in _NPY_HEADER_READERS:
                raise UnimplementedError(None, None, f"{where}: .npy format version {version} is not supported")
            shape, fortran_order, dtype = _NPY_HEADER_READERS[version](member)
            if dtype.hasobject:
                raise DataLossError(None, None, f"{where}: holds Python objects, which are never unpickled")
            nbytes = math.prod(shape) * dtype.itemsize
            available = info.file_size - member.tell()
            if nbytes != available:
                raise DataLossError(None, None, f"{where}: shape {list(shape)} of {dtype} needs {nbytes} bytes, "
                                    f"the member holds {available}")
            buffer = bytearray(nbytes)
            view, done = memoryview(buffer), 0
            while done < nbytes:  # in chunks: ZipExtFile.readinto(view) reads a whole bytes copy first
                got = member.readinto(view[done:done + _CHUNK])
                if not got:
                    raise DataLossError(None, None, f"{where}: ends after {done} of {nbytes} bytes")
                done += got
    except _ZIP_ERRORS as error:
        raise DataLossError(None, None, f"{where}: cannot be read: {error}") from error
    array = np.frombuffer(buffer, dtype=dtype)
    return array.reshape(shape[::-1]).transpose() if fortran_order else array.reshape(shape)


@contextlib.contextmanager
def members(path: str) -> Iterator[tuple[list[str], Callable[[str], np.ndarray]]]:
    """Yields (member names without ``.npy``, member reader) while the archive is open.

    Raises:
        NotFoundError: if there is no such file. DataLossError: for a damaged archive or member, or a
        name that appears twice. UnimplementedError: for a .npy version this reader does not know.
    """
    file = file_io.open_regular(path)  # NotFoundError; a FIFO or device refused without blocking
    with file:
        try:
            archive = zipfile.ZipFile(file)
        except _ZIP_ERRORS as error:
            raise DataLossError(None, None, f"{path}: not a readable .npz file: {error}") from error
        with archive:
            infos: dict[str, zipfile.ZipInfo] = {}
            for info in archive.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if name in infos:
                    raise DataLossError(None, None, f"{path}: member {info.filename!r} appears twice")
                infos[name] = info

            def member(name: str) -> np.ndarray:
                if name not in infos:
                    raise DataLossError(None, None, f"{path}: the description names member {name!r}, which the file lacks")
                return _member(archive, infos[name], path)
            yield list(infos), member
