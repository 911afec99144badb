"""Remote checkpoints written: streamed to the store where possible, else staged and uploaded.

For an fsspec URL (``memory://``, ``s3://``, ``gs://`` ...)::

    Saver.save, V2 unsharded   SaveV2 -> BundleWriter(url): data streamed to the store as tensors are
                               added, then the index, then .meta, then the ``checkpoint`` state file
    sharded / V1 saves, CLI    written to a private temporary directory, then uploaded file by file
    outputs (local_output)     in CHUNK_SIZE pieces: data files, .meta, the index last
    Saver.restore, V2          RestoreV2 with the URL: the index, then each tensor's byte range
    Saver.restore, V1 table    a staged local copy (saver.storage.reader.local_checkpoint)
    load_checkpoint / CLI      read in place by byte ranges (saver.storage.reader)

Order on every store: data, index, then the state file, so a reader following the state file never
meets a torn checkpoint.  Where the store renames in place (memory, sftp, hdfs ...) each file is
written under a temporary name and moved; on an object store (no rename: its move copies) each file
goes to its final name and appears when its upload completes, after the older index is removed
(bundle_writer.py).  Local paths and ``file://`` URLs are used in place.  Needs the optional
``fsspec`` package (``pip install 'tf1-graph-saver[remote]'``) only when a URL is given.

Layers: graph.platform.file_io < saver.storage.state < saver.storage.reader < this module < saver.saver.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterator

import numpy as np

from graph.platform import file_io
from saver.format.bundle_files import CHUNK_SIZE, DATA_SUFFIX, has_atomic_rename
from saver.storage import state
from saver.storage.reader import resolve_url, local_checkpoint

__all__ = ["local_output", "upload_checkpoint", "upload_file", "save", "restore", "in_place_prefix"]

_SAVER_V2 = 2  # SaverDef.V2


def upload_file(local: str, url: str) -> None:
    """Copies a local file to a URL in CHUNK_SIZE pieces (never whole in memory).

    Where the store renames, under a temporary name then moved over ``url``; on an object store
    straight to ``url``, which appears whole once the upload completes.
    """
    fs, inner = file_io.filesystem(url)
    target = file_io.temp_filename(inner) if has_atomic_rename(fs) else inner
    try:
        with open(local, "rb") as source, fs.open(target, "wb") as out:
            while chunk := source.read(CHUNK_SIZE):
                out.write(chunk)
        if target != inner:
            fs.mv(target, inner)
    except BaseException:
        if target != inner and fs.exists(target):
            fs.rm_file(target)
        raise


def upload_checkpoint(local_prefix: str, url_prefix: str, include_meta: bool = True,
                      meta_graph_suffix: str = "meta") -> list[str]:
    """Copies a local checkpoint to a URL prefix: data files, then ``.meta``, the index last; returns URLs.

    An older index at the URL is removed before the first data file is replaced, so a reader sees
    the old checkpoint, none, or the new one (never an old index over new data).
    """
    directory, name = os.path.split(local_prefix)
    files = sorted(f for f in os.listdir(directory or ".")
                   if f.startswith(name + ".") and DATA_SUFFIX.search(f[len(name):]))
    if include_meta and os.path.exists(f"{local_prefix}.{meta_graph_suffix}"):
        files.append(f"{name}.{meta_graph_suffix}")
    if os.path.exists(local_prefix + ".index"):
        files.append(name + ".index")
    if file_io.exists(url_prefix + ".index"):
        file_io.remove(url_prefix + ".index")
    written = []
    for filename in files:
        target = url_prefix + filename[len(name):]
        upload_file(os.path.join(directory, filename), target)
        written.append(target)
    return written


@contextlib.contextmanager
def local_output(path_or_url) -> Iterator[str]:
    """Yields a local prefix to write a checkpoint to; for a URL, uploads it when the block succeeds."""
    local = file_io.local_path(path_or_url)
    if local is not None:
        yield local
        return
    fs, path = file_io.filesystem(path_or_url)
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


def save(saver, sess, url_prefix: str, global_step=None, write_meta_graph: bool = True,
         latest_filename: str | None = None, meta_graph_suffix: str = "meta", write_state: bool = True,
         strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
    """``saver.save`` to a URL (Saver.save calls it for URLs): a V2 unsharded save streams to the store,
    others are written to a private temporary directory and uploaded (index last); then the saver's
    retention and the ``<dir>/checkpoint`` state file, last, as for a local save; returns the
    checkpoint's URL prefix (None for an empty saver)."""
    options = dict(global_step=global_step, latest_filename=latest_filename, meta_graph_suffix=meta_graph_suffix,
                   write_meta_graph=write_meta_graph, strip_default_attrs=strip_default_attrs,
                   save_debug_info=save_debug_info)
    local = file_io.local_path(url_prefix)
    if local is not None:
        return saver.save(sess, local, write_state=write_state, **options)
    directory, name = file_io.split(url_prefix)
    if not name:  # TF's relpath error for a save path that names no file ("" or "dir/")
        raise ValueError(f"no path specified: {url_prefix!r} names a directory, not a checkpoint prefix in it")
    if latest_filename is not None and os.path.split(latest_filename)[0]:
        raise ValueError("'latest_filename' must not contain path components")
    if (saver._is_built and not saver._sharded and saver._write_version == _SAVER_V2 and saver._is_empty is False
            and (global_step is not None or name != (latest_filename or "checkpoint"))):
        written = _save_streamed(saver, sess, url_prefix, global_step, write_meta_graph, meta_graph_suffix,
                                 strip_default_attrs, save_debug_info)
    else:  # Saver.save's own checks and errors, then the upload
        written = _save_staged(saver, sess, directory, name, options)
    if written is None:
        return None
    target = file_io.join(directory, posixpath.basename(written))
    saver._written.add(target)  # retention may delete what this Saver wrote, and nothing else
    if write_state:
        saver._RecordLastCheckpoint(target)
        state.update_checkpoint_state_internal(
            save_dir=directory, model_checkpoint_path=target, all_model_checkpoint_paths=saver.last_checkpoints,
            latest_filename=latest_filename, save_relative_paths=saver._save_relative_paths)
        saver._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix)
    return target


def _save_streamed(saver, sess, url_prefix: str, global_step, write_meta_graph: bool, meta_graph_suffix: str,
                   strip_default_attrs: bool, save_debug_info: bool) -> str:
    """A V2 unsharded save run with the URL itself: SaveV2's BundleWriter streams data then index; then .meta."""
    if not (hasattr(sess, "run") and hasattr(sess, "graph")):
        raise TypeError(f"'sess' must be a Session; {sess}")
    checkpoint_file = url_prefix
    if global_step is not None:  # named as Saver.save names it
        if not isinstance(global_step, (int, np.integer)) or isinstance(global_step, bool):
            global_step = int(sess.run(global_step))
        checkpoint_file = (f"{url_prefix}-{global_step:08d}" if saver._pad_step_number
                           else "%s-%d" % (url_prefix, global_step))
    written = sess.run(saver.saver_def.save_tensor_name, {saver.saver_def.filename_tensor_name: checkpoint_file})
    if write_meta_graph:
        with sess.graph.as_default():
            saver.export_meta_graph(state.meta_graph_filename(checkpoint_file, meta_graph_suffix),
                                    strip_default_attrs=strip_default_attrs, save_debug_info=save_debug_info)
    return written.decode() if isinstance(written, bytes) else str(written)


def _save_staged(saver, sess, directory: str, name: str, options: dict) -> str | None:
    """A sharded or V1 save: written to a private temporary directory, then uploaded (index last)."""
    staging = tempfile.mkdtemp(prefix="tf1-saver-remote-")
    try:
        written = saver.save(sess, os.path.join(staging, name), write_state=False, **options)
        suffix = options["meta_graph_suffix"]
        staged = sorted({f.rsplit(".", 1)[0] for f in os.listdir(staging) if DATA_SUFFIX.search(f)
                         or f.endswith((".index", "." + suffix))})
        file_io.makedirs(directory)
        for local_prefix in staged:  # a sharded V1 save or an empty saver's lone .meta included
            stem = os.path.basename(local_prefix)
            upload_checkpoint(os.path.join(staging, stem), file_io.join(directory, stem),
                              options["write_meta_graph"], suffix)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written


def in_place_prefix(path_or_url: str) -> str | None:
    """The V2 checkpoint prefix a URL names (a directory: its newest), for Saver.restore to read in place
    by byte ranges (nothing there: Saver.restore reports TF's CheckpointNotFoundError); None for a V1
    table, which is staged.

    Raises:
        NotFoundError: for a directory without a usable ``checkpoint`` state file.
    """
    local = file_io.local_path(path_or_url)
    if local is not None:  # file:// URLs: the local path
        return local
    url = resolve_url(path_or_url)
    if file_io.exists(url + ".index") or not file_io.glob(file_io.glob_escape(url) + "*"):
        return url
    return None


def restore(saver, sess, path_or_url: str) -> None:
    """``saver.restore`` from a URL prefix or directory (staged through a temporary copy)."""
    with local_checkpoint(path_or_url) as local:
        saver.restore(sess, local)
