"""The one file-system layer: local paths and fsspec URLs, and the one atomic write.

Everything that writes or reads a whole file by name goes through here (the checkpoint state file,
``.meta`` files, V1 tables, npz / safetensors exports, pictures, remote staging)::

    path or URL           local_path(p)      how it is opened
    model.ckpt, /a/b      the path itself    open() / os.* in place
    file:///a/b           /a/b               in place, no copy
    memory://d/m, s3://…  None               fsspec (optional: ``pip install 'tf1-graph-saver[remote]'``)

Atomic write (:func:`atomic_file`, :func:`write_bytes`): the bytes go to a new file beside the target
(same directory, so the rename cannot cross file systems) named ``temp_name(path)`` —
``<name>.tempstate<random uint64>`` unless the caller names it as TensorFlow does — are flushed and
fsynced, and the file is renamed over the target; on any error the temporary file is removed and the
target is untouched.  On an fsspec file system the bytes go to the temporary name, then ``mv``.
Failures of local file operations surface as TensorFlow's errors naming the file
(:func:`os_error`): NotFoundError, PermissionDeniedError, FailedPreconditionError.
"""

from __future__ import annotations

import contextlib
import errno
import glob as glob_lib
import os
import posixpath
import re
import secrets
from typing import BinaryIO
from collections.abc import Callable, Iterator

from graph import errors

__all__ = ["is_url", "local_path", "filesystem", "join", "split", "isabs", "relpath", "temp_filename",
           "atomic_file", "write_bytes", "open_writable", "read_bytes", "exists", "isdir", "makedirs", "glob",
           "glob_escape", "remove", "mtime_seconds", "os_error"]

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_FILE_URL = "file://"


# ------------------------------------------------------------------------------------------ names


def is_url(path) -> bool:
    """True for ``protocol://...`` strings (``file://`` included)."""
    return isinstance(path, str) and _URL.match(path) is not None


def local_path(path) -> str | None:
    """The local path of a plain path or ``file://`` URL; None for any other URL."""
    if not is_url(path):
        return os.fspath(path)
    if path.startswith(_FILE_URL):
        return path[len(_FILE_URL):]
    return None


def filesystem(url: str) -> tuple[object, str]:
    """(fsspec file system, path inside it) for a URL.

    Raises:
        ImportError: if fsspec (or the protocol's backend package) is not installed, saying what to install.
    """
    try:
        # Imported on first use: fsspec is optional, and only URLs need it.
        from fsspec.core import url_to_fs
    except ImportError as error:
        raise ImportError(f"{url}: URLs need the optional 'fsspec' package (pip install "
                          "'tf1-graph-saver[remote]')") from error
    try:
        return url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise ImportError(f"{url}: no fsspec backend for this protocol ({error})") from error


def join(directory: str, name: str) -> str:
    """``directory/name`` for a local directory or a URL (``memory://`` + ``m`` is ``memory://m``)."""
    if is_url(directory):
        return directory + name if directory.endswith("/") else directory + "/" + name
    return os.path.join(directory, name)


def split(path: str) -> tuple[str, str]:
    """(directory, base name): ``memory://d/m`` -> (``memory://d``, ``m``); ``memory://m`` -> (``memory://``, ``m``)."""
    if not is_url(path):
        return os.path.split(path)
    protocol = _URL.match(path).group(0)
    directory, _, name = path[len(protocol):].rpartition("/")
    return protocol + directory, name


def isabs(path: str) -> bool:
    """True for an absolute local path or any URL (a URL names its file system)."""
    return is_url(path) or os.path.isabs(path)


def relpath(path: str, start: str) -> str:
    """``path`` relative to the directory ``start``; for URLs, the part of ``path`` below ``start``."""
    if is_url(path) or is_url(start):
        head = start if start.endswith("/") else start + "/"
        return path[len(head):] if path.startswith(head) else path
    return os.path.relpath(path, start)


def glob_escape(path: str) -> str:
    """A path with glob characters escaped (``[*]``, ``[?]``, ``[[]``)."""
    return re.sub(r"([*?\[\]])", r"[\1]", path)


# ------------------------------------------------------------------------------------------ writing


def temp_filename(filename: str) -> str:
    """``<filename>.tempstate<random uint64 in decimal>``: TensorFlow's temporary name for a file being written."""
    return f"{filename}.tempstate{secrets.randbits(64)}"


def os_error(error: OSError, path: str) -> errors.OpError:
    """TensorFlow's error for a failed file operation on ``path``, naming it."""
    missing = isinstance(error, FileNotFoundError) or error.errno == errno.ENOENT
    denied = isinstance(error, PermissionError) or error.errno in (errno.EACCES, errno.EPERM)
    reason = error.strerror or (os.strerror(errno.ENOENT) if missing else os.strerror(errno.EACCES) if denied
                                else str(error))  # fsspec raises FileNotFoundError(path), without strerror
    message = f"{path}; {reason}"
    if missing:
        return errors.NotFoundError(None, None, message)
    if denied:
        return errors.PermissionDeniedError(None, None, message)
    return errors.FailedPreconditionError(None, None, message)


@contextlib.contextmanager
def atomic_file(path, temp_name: Callable[[str], str] = temp_filename) -> Iterator[BinaryIO]:
    """Yields a new local file ``temp_name(path)``; when the block ends it is fsynced and renamed over ``path``.

    The temporary file is in ``path``'s directory, created exclusively with mode 0666 less the umask
    (as ``open`` creates any file); if the block or the rename raises, it is removed and ``path`` is
    untouched.  OSErrors propagate unchanged (see :func:`os_error`).
    """
    path = os.fspath(path)
    temp = temp_name(path)
    try:
        with open(temp, "xb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())  # the bytes reach the disk before the name points at them
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):  # never created, or already renamed: the first error is the one to see
            os.remove(temp)
        raise


def write_bytes(path: str, data: bytes, temp_name: Callable[[str], str] = temp_filename) -> None:
    """Writes a file at a path or URL atomically (temporary name beside it, then rename / move).

    Raises:
        OpError: for a local path, NotFoundError / PermissionDeniedError / FailedPreconditionError naming
            the file (the temporary one when creating it failed).
    """
    local = local_path(path)
    if local is None:
        fs, inner = filesystem(path)
        temp = temp_name(inner)
        fs.pipe_file(temp, data)
        fs.mv(temp, inner)
        return
    try:
        with atomic_file(local, temp_name) as file:
            file.write(data)
    except OSError as error:
        failed = error.filename if error.filename is not None and error.filename2 is None else local
        raise os_error(error, os.fspath(failed)) from error


def open_writable(path: str) -> BinaryIO:
    """A new file at a path or URL opened for streamed writing (not atomic: for logs such as event files).

    An existing file is truncated, as TensorFlow's Env::NewWritableFile does.  On an object store the
    bytes may become visible only when the file is closed.

    Raises:
        OpError: for a local path, NotFoundError / PermissionDeniedError / FailedPreconditionError naming it.
    """
    local = local_path(path)
    if local is None:
        fs, inner = filesystem(path)
        return fs.open(inner, "wb")
    try:
        return open(local, "wb")
    except OSError as error:
        raise os_error(error, local) from error


# ------------------------------------------------------------------------------------------ reading


def read_bytes(path: str) -> bytes:
    """The bytes of the file at a path or URL.

    Raises:
        OpError: NotFoundError (no such file), PermissionDeniedError or FailedPreconditionError, naming it.
    """
    local = local_path(path)
    try:
        if local is not None:
            with open(local, "rb") as file:
                return file.read()
        fs, inner = filesystem(path)
        return fs.cat_file(inner)
    except OSError as error:
        raise os_error(error, path) from error


def exists(path: str) -> bool:
    """True if a file or directory exists at a path or URL."""
    local = local_path(path)
    if local is not None:
        return os.path.exists(local)
    fs, inner = filesystem(path)
    return fs.exists(inner)


def isdir(path: str) -> bool:
    """True if a directory exists at a path or URL."""
    local = local_path(path)
    if local is not None:
        return os.path.isdir(local)
    fs, inner = filesystem(path)
    return fs.isdir(inner)


def makedirs(path: str) -> None:
    """Creates a directory and its parents (nothing if it exists)."""
    local = local_path(path)
    if local is not None:
        if local:
            os.makedirs(local, exist_ok=True)
        return
    fs, inner = filesystem(path)
    fs.makedirs(inner, exist_ok=True)


def glob(pattern: str) -> list[str]:
    """Sorted names matching ``pattern`` (``*``, ``?``, ``[...]``); a plain name matches itself if it exists.

    Local matches include hidden files, as TensorFlow's GetMatchingFiles; URL matches keep the URL form.
    """
    local = local_path(pattern)
    if not glob_lib.has_magic(pattern):
        return [pattern if local is None else local] if exists(pattern) else []
    if local is not None:
        return sorted(glob_lib.glob(local, include_hidden=True))
    fs, inner = filesystem(pattern)
    directory, _ = split(pattern)
    return [join(directory, posixpath.basename(match)) for match in sorted(fs.glob(inner))]


def remove(path: str) -> None:
    """Deletes the file at a path or URL.

    Raises:
        FileNotFoundError: if there is none.
    """
    local = local_path(path)
    if local is not None:
        os.remove(local)
        return
    fs, inner = filesystem(path)
    if not fs.exists(inner):
        raise FileNotFoundError(path)
    fs.rm_file(inner)


def mtime_seconds(path: str) -> float:
    """The modification time of a file in whole seconds (TF's PosixFileSystem::Stat keeps whole seconds)."""
    local = local_path(path)
    if local is not None:
        return float(os.stat(local).st_mtime_ns // 1_000_000_000)
    fs, inner = filesystem(path)
    try:
        modified = fs.modified(inner).timestamp()
    except NotImplementedError:  # backends without modified(): the info dict's mtime, if any
        modified = float(fs.info(inner).get("mtime", 0))
    return float(int(modified))
