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
(:func:`os_error`, errno mapped as TensorFlow's ErrnoToCode): NotFoundError, PermissionDeniedError,
ResourceExhaustedError (disk full), FailedPreconditionError, ...

Reading (:func:`open_regular`, :func:`read_bytes`): only regular files are opened (a symlink to one is
fine); a FIFO, socket, device or directory is one FailedPreconditionError naming it.  The open never
blocks (O_NONBLOCK, so a FIFO cannot hang it) and a read takes at most the size the file had when it
was opened, and at most the caller's format limit.

Durable mode (:func:`set_durable`, env ``TF1_SAVER_DURABLE=1``; off by default, as TensorFlow never
fsyncs): writers call :func:`sync_file` on each finished file before its rename and
:func:`sync_directory` after the renames, so a power cut cannot leave a name pointing at bytes that
never reached the disk.
"""

from __future__ import annotations

import contextlib
import errno
import glob as glob_lib
import os
import posixpath
import re
import secrets
import stat as stat_lib
from typing import BinaryIO
from collections.abc import Callable, Iterator

from graph import errors

__all__ = ["is_url", "local_path", "filesystem", "join", "split", "isabs", "relpath", "temp_filename",
           "atomic_file", "write_bytes", "open_writable", "read_bytes", "exists", "isdir", "makedirs", "glob",
           "glob_escape", "remove", "mtime_seconds", "os_error", "open_regular", "set_durable", "durable",
           "sync_file", "sync_directory", "special_file_error", "read_open",
           "intended_name"]

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


# TensorFlow's ErrnoToCode (tsl/platform/errors.cc) for the errno values file operations meet.
_ERRNO_CLASSES = {
    errno.ENOENT: errors.NotFoundError, errno.ENODEV: errors.NotFoundError, errno.ENXIO: errors.NotFoundError,
    errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
    errno.EROFS: errors.PermissionDeniedError,
    errno.ENOSPC: errors.ResourceExhaustedError, errno.EDQUOT: errors.ResourceExhaustedError,
    errno.EMFILE: errors.ResourceExhaustedError, errno.ENFILE: errors.ResourceExhaustedError,
    errno.ENOMEM: errors.ResourceExhaustedError, errno.EMLINK: errors.ResourceExhaustedError,
    errno.EFBIG: errors.OutOfRangeError, errno.EOVERFLOW: errors.OutOfRangeError,
    errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EBUSY: errors.FailedPreconditionError,
    errno.ETXTBSY: errors.FailedPreconditionError, errno.EBADF: errors.FailedPreconditionError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.ENAMETOOLONG: errors.InvalidArgumentError, errno.EINVAL: errors.InvalidArgumentError,
    errno.ELOOP: errors.InvalidArgumentError,
    errno.EAGAIN: errors.UnavailableError, errno.EINTR: errors.UnavailableError,
}


def intended_name(path: str) -> str:
    """The file a temporary name of :func:`temp_filename` stands for (other paths unchanged)."""
    return re.sub(r"\.tempstate\d+$", "", os.fspath(path))


def os_error(error: OSError, path: str) -> errors.OpError:
    """TensorFlow's error for a failed file operation on ``path``, naming it (EIO and others: UnknownError)."""
    code = error.errno
    if code is None:  # fsspec raises FileNotFoundError(path), PermissionError(...), without errno
        code = errno.ENOENT if isinstance(error, FileNotFoundError) else errno.EACCES \
            if isinstance(error, PermissionError) else None
    reason = error.strerror or (os.strerror(code) if code is not None else str(error) or type(error).__name__)
    return _ERRNO_CLASSES.get(code, errors.UnknownError)(None, None, f"{path}; {reason}")


# ------------------------------------------------------------------------------------------ durability

_DURABLE = {"on": os.environ.get("TF1_SAVER_DURABLE", "") not in ("", "0")}


def set_durable(on: bool) -> bool:
    """Turns durable mode on or off for this process; returns the previous setting."""
    previous, _DURABLE["on"] = _DURABLE["on"], bool(on)
    return previous


def durable() -> bool:
    """True in durable mode (files and their directories fsynced before a checkpoint is named)."""
    return _DURABLE["on"]


def sync_file(fd: int) -> None:
    """fsyncs an open file descriptor in durable mode (nothing otherwise)."""
    if _DURABLE["on"]:
        os.fsync(fd)


def sync_directory(path: str) -> None:
    """fsyncs the directory holding ``path`` (a file name) in durable mode, so its renames survive a power cut."""
    if not _DURABLE["on"] or is_url(path):
        return
    directory = os.path.dirname(os.fspath(local_path(path))) or "."
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_file(path, temp_name: Callable[[str], str] = temp_filename) -> Iterator[BinaryIO]:
    """Yields a new local file ``temp_name(path)``; when the block ends it is fsynced and renamed over ``path``.

    The temporary file is in ``path``'s directory, created exclusively with mode 0666 less the umask
    (as ``open`` creates any file); if the block or the rename raises, it is removed and ``path`` is
    untouched.  OSErrors propagate as OSErrors naming ``path`` (see :func:`os_error`).
    """
    path = os.fspath(path)
    temp = temp_name(path)
    try:
        with open(temp, "xb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())  # the bytes reach the disk before the name points at them
        os.replace(temp, path)
        sync_directory(path)
    except BaseException as error:
        with contextlib.suppress(OSError):  # never created, or already renamed: the first error is the one to see
            os.remove(temp)
        if isinstance(error, OSError) and (error.filename is None or error.filename == temp):
            raise OSError(error.errno, error.strerror, path) from error  # name the file, not its temp name
        raise


def write_bytes(path: str, data: bytes, temp_name: Callable[[str], str] = temp_filename) -> None:
    """Writes a file at a path or URL atomically (temporary name beside it, then rename / move).

    Raises:
        OpError: for a local path, TF's class for the errno (NotFoundError, PermissionDeniedError,
            ResourceExhaustedError for a full disk, ...) naming the file.
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
        raise os_error(error, local) from error  # the file being written, not its temporary name


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


_KINDS = ((stat_lib.S_ISDIR, "Is a directory"), (stat_lib.S_ISFIFO, "a FIFO"), (stat_lib.S_ISSOCK, "a socket"),
          (stat_lib.S_ISCHR, "a character device"), (stat_lib.S_ISBLK, "a block device"))
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def special_file_error(path: str, mode: int) -> errors.FailedPreconditionError | None:
    """The error for a path whose stat mode is not a regular file, None for a regular file."""
    if stat_lib.S_ISREG(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    if kind == "Is a directory":
        return errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    return errors.FailedPreconditionError(None, None, f"{path}: is {kind}, not a regular file; checkpoint files "
                                          "are read only from regular files")


def open_regular(path) -> BinaryIO:
    """Opens a local regular file for reading (symlinks to one are fine); never blocks on a FIFO.

    Raises:
        OpError: FailedPreconditionError for a directory, FIFO, socket or device; NotFoundError,
            PermissionDeniedError, ... (os_error) when it cannot be opened; all naming the path.
    """
    path = os.fspath(path)
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as error:
        try:  # a socket cannot be opened at all (ENXIO): say what it is
            problem = special_file_error(path, os.stat(path).st_mode)
        except OSError:
            problem = None
        raise (problem or os_error(error, path)) from error
    try:
        problem = special_file_error(path, os.fstat(fd).st_mode)
        if problem is not None:
            raise problem
        if _READ_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_open(file: BinaryIO, path: str, limit: int | None = None, what: str = "file") -> bytes:
    """All bytes of a file opened by open_regular: at most its size at open time and at most ``limit``.

    Raises:
        ResourceExhaustedError: if the file is larger than ``limit`` (a format limit), naming it.
    """
    size = os.fstat(file.fileno()).st_size
    if limit is not None and size > limit:
        raise errors.ResourceExhaustedError(None, None, f"{path}: {size} bytes is more than a {what} can hold "
                                            f"({limit} bytes)")
    try:
        return file.read(size)
    except OSError as error:
        raise os_error(error, path) from error


def read_bytes(path: str, limit: int | None = None, what: str = "file") -> bytes:
    """The bytes of the (regular) file at a path or URL, at most ``limit`` of them.

    Raises:
        OpError: NotFoundError (no such file), FailedPreconditionError (a directory, FIFO, socket or
            device), PermissionDeniedError, ResourceExhaustedError (over ``limit``), naming it.
    """
    local = local_path(path)
    if local is not None:
        with open_regular(local) as file:
            return read_open(file, path, limit, what)
    try:
        fs, inner = filesystem(path)
        if limit is not None and fs.size(inner) > limit:
            raise errors.ResourceExhaustedError(None, None, f"{path}: more than a {what} can hold ({limit} bytes)")
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
