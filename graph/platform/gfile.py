"""``tf.gfile``: TensorFlow's file API (GFile, Exists, Glob, Walk, ...) over the one file-system layer.

Every name takes a local path or an fsspec URL (``memory://d/f``, ``s3://...``); names are dispatched by
:func:`graph.platform.file_io.local_path` as everywhere else.  Failures are TensorFlow's errors with
TensorFlow's wording: a missing file is ``NotFoundError('<path>; No such file or directory')``, an
existing target of Copy/Rename ``AlreadyExistsError('file already exists')``.  A GFile opens its file on
first use, as TensorFlow's does, reads and writes bytes, and decodes UTF-8 unless its mode has ``b``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Iterator

from graph import errors
from graph.platform import file_io

__all__ = ["GFile", "FastGFile", "Open", "Exists", "IsDirectory", "ListDirectory", "Glob", "MakeDirs", "MkDir",
           "Remove", "DeleteRecursively", "Rename", "Copy", "Stat", "Walk", "FileStatistics"]

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _not_found(path: str) -> errors.NotFoundError:
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


def _call(path: str, local_call, remote_call):
    """``local_call(local path)`` or ``remote_call(fs, inner path)``; OSErrors as TF's errors naming ``path``."""
    local = file_io.local_path(path)
    try:
        if local is not None:
            return local_call(local)
        fs, inner = file_io.filesystem(path)
        return remote_call(fs, inner)
    except OSError as error:
        raise file_io.os_error(error, path) from error


# ------------------------------------------------------------------------------------------ GFile


class GFile:
    """A file at a path or URL with TensorFlow's GFile interface (opened on first read or write)."""

    def __init__(self, name: str, mode: str = "r"):
        """Names the file; ``mode`` is ``r``, ``w``, ``a``, ``r+``, ``w+`` or ``a+``, each with optional ``b``.

        Raises:
            InvalidArgumentError: for any other mode.
        """
        self.__name = os.fspath(name) if not isinstance(name, str) else name
        self.__mode = mode
        self._binary = "b" in mode
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._read_check_passed = "r" in mode or "+" in mode
        self._write_check_passed = "a" in mode or "w" in mode or "+" in mode
        self._file = None

    @property
    def name(self) -> str:
        """The path or URL the file was opened with."""
        return self.__name

    @property
    def mode(self) -> str:
        """The mode the file was opened with."""
        return self.__mode

    def _open(self):
        if self._file is None:
            raw_mode = self.__mode.replace("b", "") + "b"
            self._file = _call(self.__name, lambda local: open(local, raw_mode),
                               lambda fs, inner: fs.open(inner, raw_mode))
        return self._file

    def _readable(self):
        if not self._read_check_passed:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._open()

    def _writable(self):
        if not self._write_check_passed:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        return self._open()

    def _decoded(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self) -> int:
        """The file's length in bytes."""
        return Stat(self.__name).length

    def write(self, file_content) -> None:
        """Writes ``file_content`` (str is encoded as UTF-8)."""
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(file_content)
        _call(self.__name, lambda _: self._writable().write(data), lambda *_: self._writable().write(data))

    def read(self, n: int = -1):
        """Up to ``n`` bytes (all with -1), decoded unless the mode is binary."""
        file = self._readable()
        return self._decoded(_call(self.__name, lambda _: file.read(n), lambda *_: file.read(n)))

    def readline(self):
        """The next line, with its newline; empty at the end of the file."""
        file = self._readable()
        return self._decoded(_call(self.__name, lambda _: file.readline(), lambda *_: file.readline()))

    def readlines(self) -> list:
        """All remaining lines."""
        return list(self)

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        """Moves to ``offset`` relative to ``whence`` (0 start, 1 current, 2 end); ``position`` is TF's old name."""
        if position is not None:
            offset = position
        self._readable().seek(offset, whence)

    def tell(self) -> int:
        """The current byte offset."""
        return self._open().tell()

    def seekable(self) -> bool:
        """True: every GFile can seek."""
        return True

    def flush(self) -> None:
        """Pushes written bytes to the file system."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file (a later read or write opens it again)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    next = __next__


FastGFile = GFile  # TF's FastGFile is a deprecated GFile
Open = GFile


# ------------------------------------------------------------------------------------------ queries


@dataclasses.dataclass(frozen=True)
class FileStatistics:
    """What Stat reports: the length in bytes, the modification time in nanoseconds, and whether it is a directory."""

    length: int
    mtime_nsec: int
    is_directory: bool


def Exists(filename: str) -> bool:
    """True if a file or directory exists at ``filename``."""
    return file_io.exists(filename)


def IsDirectory(dirname: str) -> bool:
    """True if ``dirname`` is a directory."""
    return file_io.isdir(dirname)


def Stat(filename: str) -> FileStatistics:
    """Length, modification time and kind of a file or directory.

    Raises:
        NotFoundError: if there is nothing at ``filename``.
    """
    def local(path):
        status = os.stat(path)
        return FileStatistics(status.st_size, status.st_mtime_ns // 1_000_000_000 * 1_000_000_000,
                              os.path.isdir(path))

    def remote(fs, inner):
        info = fs.info(inner)
        mtime = int(file_io.mtime_seconds(filename)) if info["type"] != "directory" else 0
        return FileStatistics(int(info.get("size") or 0), mtime * 1_000_000_000, info["type"] == "directory")

    return _call(filename, local, remote)


def ListDirectory(dirname: str) -> list[str]:
    """The names of the entries of a directory (not full paths), sorted.

    Raises:
        NotFoundError: if ``dirname`` is not a directory.
    """
    if not IsDirectory(dirname):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    return sorted(_call(dirname, os.listdir,
                        lambda fs, inner: [entry.rstrip("/").rpartition("/")[2]
                                           for entry in fs.ls(inner, detail=False)]))


def Glob(filename: str) -> list[str]:
    """The sorted paths matching a pattern (``*``, ``?``, ``[...]``); a list of patterns gives all their matches."""
    if isinstance(filename, (list, tuple)):
        return sorted({match for pattern in filename for match in file_io.glob(pattern)})
    return file_io.glob(filename)


def Walk(top: str, in_order: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(directory, subdirectory names, file names)`` for ``top`` and every directory below it.

    ``in_order`` yields a directory before its subdirectories, else after; a missing ``top`` yields nothing.
    """
    try:
        names = ListDirectory(top)
    except errors.NotFoundError:
        return
    subdirs, files = [], []
    for name in names:
        (subdirs if IsDirectory(file_io.join(top, name)) else files).append(name)
    here = (top, subdirs, files)
    if in_order:
        yield here
    for subdir in subdirs:
        yield from Walk(file_io.join(top, subdir), in_order)
    if not in_order:
        yield here


# ------------------------------------------------------------------------------------------ changes


def MakeDirs(dirname: str) -> None:
    """Creates a directory and any missing parents (nothing if it exists)."""
    _call(dirname, lambda local: file_io.makedirs(local), lambda *_: file_io.makedirs(dirname))


def MkDir(dirname: str) -> None:
    """Creates one directory (nothing if it exists).

    Raises:
        NotFoundError: if its parent does not exist.
    """
    def local(path):
        if not os.path.isdir(path):
            os.mkdir(path)

    def remote(fs, inner):
        parent = inner.rstrip("/").rpartition("/")[0]
        if parent and not fs.isdir(parent):
            raise FileNotFoundError(dirname)
        fs.makedirs(inner, exist_ok=True)

    _call(dirname, local, remote)


def Remove(filename: str) -> None:
    """Deletes a file.

    Raises:
        NotFoundError: if there is none; FailedPreconditionError: if it is a directory.
    """
    _call(filename, os.remove, lambda fs, inner: file_io.remove(filename))


def DeleteRecursively(dirname: str) -> None:
    """Deletes a directory and everything below it (or a single file).

    Raises:
        NotFoundError: if nothing exists at ``dirname``.
    """
    if not Exists(dirname):
        raise errors.NotFoundError(None, None, f"{dirname} not found")
    _call(dirname, lambda local: shutil.rmtree(local) if os.path.isdir(local) else os.remove(local),
          lambda fs, inner: fs.rm(inner, recursive=True))


def _check_target(oldpath: str, newpath: str, overwrite: bool) -> None:
    if not Exists(oldpath):
        raise _not_found(oldpath)
    if not overwrite and Exists(newpath):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def Rename(oldname: str, newname: str, overwrite: bool = False) -> None:
    """Moves ``oldname`` to ``newname``.

    Raises:
        NotFoundError: if ``oldname`` does not exist; AlreadyExistsError: if ``newname`` does and not ``overwrite``.
    """
    _check_target(oldname, newname, overwrite)
    if file_io.local_path(oldname) is not None and file_io.local_path(newname) is not None:
        _call(newname, lambda local: os.replace(file_io.local_path(oldname), local), None)
        return
    Copy(oldname, newname, overwrite=True)
    DeleteRecursively(oldname)


def Copy(oldpath: str, newpath: str, overwrite: bool = False) -> None:
    """Copies the file ``oldpath`` to ``newpath`` (across file systems too).

    Raises:
        NotFoundError: if ``oldpath`` does not exist; AlreadyExistsError: if ``newpath`` does and not ``overwrite``.
    """
    _check_target(oldpath, newpath, overwrite)
    data = file_io.read_bytes(oldpath)
    _call(newpath, lambda local: _write_local(local, data), lambda fs, inner: fs.pipe_file(inner, data))


def _write_local(path: str, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)
