"""Remote and in-memory checkpoints: fsspec URLs (``memory://``, ``file://``, ``s3://``, ``gs://`` ...).

The bundle reader and writer work on local files (they read tensors on demand with ``readinto``
and rename temporary files into place).  For a URL, this module stages the checkpoint through a
private temporary directory::

    reading  <url prefix>.index, .data-*-of-*  --copy-->  tmp/<name>.*  --> CheckpointReader
    writing  BundleWriter / Saver -> tmp/<name>.*  --upload, data files first, index last-->  <url>

Uploading the index last keeps TensorFlow's rule that a checkpoint exists once its index does; each
file goes to a ``.tempstate<random decimal>`` name and is moved into place where the filesystem can move.
``Saver.save`` / ``Saver.restore`` hand URLs to :func:`save` / :func:`restore`; saver/state.py reads and
writes the ``checkpoint`` state file (and deletes old checkpoints) at URLs through :func:`read_bytes`,
:func:`write_bytes`, :func:`exists`, :func:`glob`, :func:`remove` and :func:`mtime_seconds`.
Local paths and ``file://`` URLs are used in place, with no copy.  Needs the optional ``fsspec``
package (``pip install 'tf1-graph-saver[remote]'``) only when a URL is given.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import shutil
import tempfile
from typing import Iterator, List, Optional, Tuple

from graph.base.errors import NotFoundError
from saver.format.bundle_files import temp_filename

__all__ = ["is_url", "local_path", "filesystem", "local_checkpoint", "local_output", "open_checkpoint",
           "read_bytes", "write_bytes", "exists", "glob", "remove", "mtime_seconds", "latest_checkpoint",
           "upload_checkpoint", "checkpoint_files", "save", "restore"]

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
        from fsspec.core import url_to_fs
    except ImportError as error:
        raise ImportError(f"{url}: URLs need the optional 'fsspec' package (pip install "
                          "'tf1-graph-saver[remote]')") from error
    try:
        return url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise ImportError(f"{url}: no fsspec backend for this protocol ({error})") from error


def _join(url: str, name: str) -> str:
    return url + name if url.endswith("/") else url + "/" + name


def _split(url: str) -> Tuple[str, str]:
    """(directory URL, base name) of a URL: ``memory://d/m`` -> (``memory://d``, ``m``); ``memory://m`` ->
    (``memory://``, ``m``)."""
    protocol = _URL.match(url).group(0)
    directory, _, name = url[len(protocol):].rpartition("/")
    return protocol + directory, name


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
        temp = temp_filename(local)
        try:
            with open(temp, "wb") as file:
                file.write(data)
            os.replace(temp, local)
        except BaseException:
            if os.path.exists(temp):
                os.remove(temp)
            raise
        return
    fs, path = filesystem(url)
    temp = temp_filename(path)
    fs.pipe_file(temp, data)
    fs.mv(temp, path)


def exists(url: str) -> bool:
    """True if a file or directory exists at a URL."""
    fs, path = filesystem(url)
    return fs.exists(path)


def glob(pattern: str) -> List[str]:
    """The URLs matching ``pattern`` (``*``, ``?``, ``[...]`` in its last component), sorted."""
    fs, path = filesystem(pattern)
    if not re.search(r"[*?\[]", pattern):
        return [pattern] if fs.exists(path) else []
    directory, _ = _split(pattern)
    return [_join(directory, posixpath.basename(match)) for match in sorted(fs.glob(path))]


def remove(url: str) -> None:
    """Deletes the file at a URL (FileNotFoundError if there is none)."""
    fs, path = filesystem(url)
    if not fs.exists(path):
        raise FileNotFoundError(url)
    fs.rm_file(path)


def mtime_seconds(url: str) -> float:
    """The modification time of the file at a URL, in whole seconds (as TF's file systems report it)."""
    fs, path = filesystem(url)
    try:
        modified = fs.modified(path).timestamp()
    except NotImplementedError:  # backends without modified(): the info dict's mtime, if any
        modified = float(fs.info(path).get("mtime", 0))
    return float(int(modified))


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
        from saver.storage.state import get_checkpoint_state
        try:
            state = get_checkpoint_state(url)
        except ValueError as error:
            raise NotFoundError(f"{url}/{_STATE_FILENAME}: {error}") from error
        if state is None:
            raise NotFoundError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {url}")
        prefix = state.model_checkpoint_path
        if _URL.match(prefix) is None:  # an absolute local path written elsewhere: the same path here
            return _URL.match(url).group(0) + prefix.lstrip("/")
        return prefix
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


def upload_checkpoint(local_prefix: str, url_prefix: str, include_meta: bool = True,
                      meta_graph_suffix: str = "meta") -> List[str]:
    """Copies a local checkpoint to a URL prefix: data files, then ``.meta``, the index last; returns URLs."""
    directory, name = os.path.split(local_prefix)
    files = sorted(f for f in os.listdir(directory or ".")
                   if f.startswith(name + ".") and _DATA.search(f[len(name):]))
    if include_meta and os.path.exists(f"{local_prefix}.{meta_graph_suffix}"):
        files.append(f"{name}.{meta_graph_suffix}")
    if os.path.exists(local_prefix + ".index"):
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
        from saver.storage.reader import load_checkpoint
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
        from saver.storage.reader import load_checkpoint
        return load_checkpoint(local_path(path_or_url))
    return _StagedReader(path_or_url)


def latest_checkpoint(url_dir: str, latest_filename: Optional[str] = None) -> Optional[str]:
    """The newest checkpoint prefix named by ``<url_dir>/checkpoint`` (a URL for a URL), or None
    (saver.storage.state.latest_checkpoint, which reads URLs through this module)."""
    from saver.storage.state import latest_checkpoint as state_latest_checkpoint
    return state_latest_checkpoint(url_dir, latest_filename)


def save(saver, sess, url_prefix: str, global_step=None, write_meta_graph: bool = True,
         latest_filename: Optional[str] = None, meta_graph_suffix: str = "meta", write_state: bool = True,
         strip_default_attrs: bool = False, save_debug_info: bool = False) -> Optional[str]:
    """``saver.save`` to a URL (Saver.save calls it for URLs): the checkpoint is written to a private
    temporary directory, uploaded (index last), and the saver's retention and ``<dir>/checkpoint`` state
    file are kept as for a local save; returns the checkpoint's URL prefix (None for an empty saver)."""
    options = dict(global_step=global_step, latest_filename=latest_filename, meta_graph_suffix=meta_graph_suffix,
                   write_meta_graph=write_meta_graph, strip_default_attrs=strip_default_attrs,
                   save_debug_info=save_debug_info)
    local = local_path(url_prefix)
    if local is not None:
        return saver.save(sess, local, write_state=write_state, **options)
    directory, name = _split(url_prefix)
    staging = tempfile.mkdtemp(prefix="tf1-saver-remote-")
    try:
        written = saver.save(sess, os.path.join(staging, name or "ckpt"), write_state=False, **options)
        staged = sorted({f.rsplit(".", 1)[0] for f in os.listdir(staging) if _DATA.search(f)
                         or f.endswith((".index", "." + meta_graph_suffix))})
        fs, path = filesystem(directory)
        fs.makedirs(path, exist_ok=True)
        for local_prefix in staged:  # a sharded V1 save or an empty saver's lone .meta included
            stem = os.path.basename(local_prefix)
            upload_checkpoint(os.path.join(staging, stem), _join(directory, stem), write_meta_graph,
                              meta_graph_suffix)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if written is None:
        return None
    target = _join(directory, os.path.basename(written))
    saver._written.add(target)  # retention may delete what this Saver wrote, and nothing else
    if write_state:
        from saver.storage import state
        saver._RecordLastCheckpoint(target)
        state.update_checkpoint_state_internal(
            save_dir=directory, model_checkpoint_path=target, all_model_checkpoint_paths=saver.last_checkpoints,
            latest_filename=latest_filename, save_relative_paths=saver._save_relative_paths)
        saver._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix)
    return target


def restore(saver, sess, path_or_url: str) -> None:
    """``saver.restore`` from a URL prefix or directory (staged through a temporary copy)."""
    with local_checkpoint(path_or_url) as local:
        saver.restore(sess, local)
