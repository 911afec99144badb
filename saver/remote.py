"""Remote and in-memory checkpoints: fsspec URLs (``memory://``, ``file://``, ``s3://``, ``gs://`` ...).

The bundle reader and writer work on local files (they read tensors on demand with ``readinto``
and rename temporary files into place).  For a URL, this module stages the checkpoint through a
private temporary directory::

    reading  <url prefix>.index, .data-*-of-*  --copy-->  tmp/<name>.*  --> CheckpointReader
    writing  BundleWriter / Saver -> tmp/<name>.*  --upload, data files first, index last-->  <url>

Uploading the index last keeps TensorFlow's rule that a checkpoint exists once its index does; each
file goes to a ``.tempstate<hex>`` name and is moved into place where the filesystem can move.
Local paths and ``file://`` URLs are used in place, with no copy.  Needs the optional ``fsspec``
package (``pip install 'tf1-graph-saver[remote]'``) only when a URL is given.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import secrets
import shutil
import tempfile
from typing import Iterator, List, Optional, Tuple

from graph.errors import NotFoundError

__all__ = ["is_url", "local_path", "filesystem", "local_checkpoint", "local_output", "open_checkpoint",
           "read_bytes", "write_bytes", "latest_checkpoint", "upload_checkpoint", "checkpoint_files",
           "save", "restore"]

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")
_DATA = re.compile(r"\.data-\d{5}-of-\d{5}$")
_STATE_FILENAME = "checkpoint"


def is_url(path) -> bool:
    """True for ``protocol://...`` strings (``file://`` included)."""
    return isinstance(path, str) and _URL.match(path) is not None


def local_path(path) -> Optional[str]:
    """The local path of a plain path or ``file://`` URL; None for any other URL."""
    if not is_url(path):
        return os.fspath(path)
    if path.startswith("file://"):
        return path[len("file://"):]
    return None


def filesystem(url: str) -> Tuple[object, str]:
    """(fsspec filesystem, path inside it) for a URL.

    Raises:
        ImportError: if fsspec (or the backend's package) is not installed, saying what to install.
    """
    try:
        import fsspec  # noqa: F401 - the optional dependency itself
        from fsspec.core import url_to_fs
    except ImportError as error:
        raise ImportError(f"{url}: URLs need the optional 'fsspec' package (pip install "
                          "'tf1-graph-saver[remote]')") from error
    try:
        return url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise ImportError(f"{url}: no fsspec backend for this protocol ({error})") from error


def _join(url: str, name: str) -> str:
    return url.rstrip("/") + "/" + name


def read_bytes(url: str) -> bytes:
    """The bytes of a file at a path or URL.

    Raises:
        NotFoundError: naming the file.
    """
    local = local_path(url)
    try:
        if local is not None:
            with open(local, "rb") as file:
                return file.read()
        fs, path = filesystem(url)
        return fs.cat_file(path)
    except FileNotFoundError as error:
        raise NotFoundError(f"{url}: no such file") from error


def write_bytes(url: str, data: bytes) -> None:
    """Writes a file at a path or URL atomically (temporary name, then move)."""
    local = local_path(url)
    if local is not None:
        temp = f"{local}.tempstate{secrets.randbits(64)}"
        with open(temp, "wb") as file:
            file.write(data)
        os.replace(temp, local)
        return
    fs, path = filesystem(url)
    temp = f"{path}.tempstate{secrets.randbits(64)}"
    fs.pipe_file(temp, data)
    fs.mv(temp, path)


def checkpoint_files(url_prefix: str) -> List[str]:
    """The remote files of a V2 checkpoint: data shards (sorted), then the index.

    Raises:
        NotFoundError: if ``<prefix>.index`` does not exist.
    """
    fs, path = filesystem(url_prefix)
    if not fs.exists(path + ".index"):
        raise NotFoundError(f"{url_prefix}.index: no such file (not a V2 checkpoint prefix)")
    data = sorted(p for p in fs.glob(glob_escape(path) + ".data-*") if _DATA.search(p))
    return data + [path + ".index"]


def glob_escape(path: str) -> str:
    """A path with fsspec glob characters escaped."""
    return re.sub(r"([*?\[\]])", r"[\1]", path)


def _resolve_remote(url: str) -> str:
    """A URL prefix for a directory (its ``checkpoint`` file), a prefix, or one of its files."""
    fs, path = filesystem(url)
    if fs.isdir(path):
        state = _join(path, _STATE_FILENAME)
        try:
            text = fs.cat_file(state).decode("utf-8", "surrogateescape")
        except FileNotFoundError as error:
            raise NotFoundError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {url}") from error
        from saver.state import CheckpointState, ParseError
        try:
            prefix = CheckpointState.from_text(text).model_checkpoint_path
        except ParseError as error:
            raise NotFoundError(f"{url}/{_STATE_FILENAME}: cannot parse the checkpoint state: {error}") from error
        if not prefix:
            raise NotFoundError(f"{url}/{_STATE_FILENAME} names no model_checkpoint_path")
        if _URL.match(prefix) is None and not posixpath.isabs(prefix):
            return url.rstrip("/") + "/" + prefix
        return prefix if _URL.match(prefix) else _URL.match(url).group(0) + prefix.lstrip("/")
    for suffix in (".index", ".meta"):
        if url.endswith(suffix) and not fs.exists(path + ".index"):
            return url[:-len(suffix)]
    if _DATA.search(url) and not fs.exists(path + ".index"):
        return _DATA.sub("", url)
    return url


@contextlib.contextmanager
def local_checkpoint(path_or_url) -> Iterator[str]:
    """Yields a local path a CheckpointReader can open: the path itself, or a staged copy of a URL.

    Raises:
        NotFoundError: if the URL names no checkpoint.
    """
    local = local_path(path_or_url)
    if local is not None:
        yield local
        return
    url = _resolve_remote(path_or_url)
    fs, path = filesystem(url)
    files = checkpoint_files(url)
    meta = path + ".meta"
    if fs.exists(meta):
        files.append(meta)
    directory = tempfile.mkdtemp(prefix="tf1-saver-remote-")
    try:
        name = posixpath.basename(path)
        for remote in files:
            fs.get_file(remote, os.path.join(directory, name + remote[len(path):]))
        yield os.path.join(directory, name)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def upload_checkpoint(local_prefix: str, url_prefix: str, include_meta: bool = True) -> List[str]:
    """Copies a local checkpoint to a URL prefix: data files, then ``.meta``, the index last; returns URLs."""
    directory, name = os.path.split(local_prefix)
    files = sorted(f for f in os.listdir(directory or ".")
                   if f.startswith(name + ".") and _DATA.search(f[len(name):]))
    if include_meta and os.path.exists(local_prefix + ".meta"):
        files.append(name + ".meta")
    files.append(name + ".index")
    written = []
    for filename in files:
        with open(os.path.join(directory, filename), "rb") as file:
            target = url_prefix + filename[len(name):]
            write_bytes(target, file.read())
            written.append(target)
    return written


@contextlib.contextmanager
def local_output(path_or_url) -> Iterator[str]:
    """Yields a local prefix to write a checkpoint to; for a URL, uploads it when the block succeeds."""
    local = local_path(path_or_url)
    if local is not None:
        yield local
        return
    fs, path = filesystem(path_or_url)
    directory = tempfile.mkdtemp(prefix="tf1-saver-remote-")
    try:
        prefix = os.path.join(directory, posixpath.basename(path) or "ckpt")
        yield prefix
        parent = posixpath.dirname(path)
        if parent:
            fs.makedirs(parent, exist_ok=True)
        upload_checkpoint(prefix, path_or_url)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class _StagedReader:
    """A CheckpointReader over a staged copy; closing it removes the copy."""

    def __init__(self, path_or_url):
        from saver.reader import load_checkpoint
        self._stage = local_checkpoint(path_or_url)
        local = self._stage.__enter__()
        try:
            self._reader = load_checkpoint(local)
        except BaseException:
            self._stage.__exit__(None, None, None)
            raise
        self.url = path_or_url

    def __getattr__(self, name):
        return getattr(self._reader, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the reader and removes the staged copy."""
        self._reader.close()
        self._stage.__exit__(None, None, None)


def open_checkpoint(path_or_url):
    """A CheckpointReader for a local path or a URL (staged); use it as a context manager.

    Raises:
        NotFoundError: if there is no checkpoint there.
    """
    if local_path(path_or_url) is not None:
        from saver.reader import load_checkpoint
        return load_checkpoint(local_path(path_or_url))
    return _StagedReader(path_or_url)


def latest_checkpoint(url_dir: str) -> Optional[str]:
    """The newest checkpoint prefix named by ``<url_dir>/checkpoint`` (as a URL), or None."""
    local = local_path(url_dir)
    if local is not None:
        from saver.state import latest_checkpoint as local_latest
        return local_latest(local)
    try:
        prefix = _resolve_remote(url_dir)
    except NotFoundError:
        return None
    fs, path = filesystem(prefix)
    return prefix if fs.exists(path + ".index") else None


def save(saver, sess, url_prefix: str, global_step=None, write_meta_graph: bool = True) -> str:
    """``saver.save`` to a URL: writes locally, uploads, and updates ``<dir>/checkpoint``; returns the URL.

    The state file lists this checkpoint by its base name, relative to its directory.
    """
    if local_path(url_prefix) is not None:
        return saver.save(sess, local_path(url_prefix), global_step=global_step, write_meta_graph=write_meta_graph)
    name = posixpath.basename(url_prefix.rstrip("/"))
    if global_step is not None:
        step = global_step if isinstance(global_step, int) else int(sess.run(global_step))
        name = f"{name}-{step}"
    directory = url_prefix.rstrip("/")[:-len(posixpath.basename(url_prefix.rstrip("/")))].rstrip("/")
    target = _join(directory, name)
    with local_output(target) as local:
        saver.save(sess, local, write_meta_graph=write_meta_graph, write_state=False)
    from saver.state import CheckpointState, ParseError, generate_checkpoint_state_proto
    state_url = _join(directory, _STATE_FILENAME)
    try:  # keep the history of earlier saves to this directory
        earlier = CheckpointState.from_text(read_bytes(state_url).decode("utf-8")).all_model_checkpoint_paths
    except (NotFoundError, ParseError, UnicodeDecodeError):
        earlier = []
    state = generate_checkpoint_state_proto(".", name, [p for p in earlier if p != name] + [name])
    write_bytes(state_url, state.to_text().encode("utf-8"))
    return target


def restore(saver, sess, path_or_url: str) -> None:
    """``saver.restore`` from a URL prefix or directory (staged through a temporary copy)."""
    with local_checkpoint(path_or_url) as local:
        saver.restore(sess, local)
