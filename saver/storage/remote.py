"""Remote checkpoints written: the Saver and the writers stage a checkpoint locally, then upload it.

The bundle writer works on local files (it renames temporary files into place).  For an fsspec URL
(``memory://``, ``s3://``, ``gs://`` ...) this module stages the checkpoint through a private temporary
directory::

    writing  BundleWriter / Saver -> tmp/<name>.*  --upload, data files first, index last-->  <url>
    reading  <url prefix>.index, .data-*-of-*  --copy-->  tmp/<name>.*  (saver.storage.reader)

Uploading the index last keeps TensorFlow's rule that a checkpoint exists once its index does; each
file is written atomically through graph/platform/file_io.py (a temporary name, then a move).
``Saver.save`` / ``Saver.restore`` hand URLs to :func:`save` / :func:`restore`; the ``checkpoint`` state
file at a URL is read and written by saver/storage/state.py through the same file layer.  Local paths
and ``file://`` URLs are used in place, with no copy.  Needs the optional ``fsspec`` package
(``pip install 'tf1-graph-saver[remote]'``) only when a URL is given.

Layers: graph.platform.file_io < saver.storage.state < saver.storage.reader < this module < saver.saver.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
import tempfile
from collections.abc import Iterator

from graph.platform import file_io
from saver.format.bundle_files import DATA_SUFFIX
from saver.storage import state
from saver.storage.reader import local_checkpoint

__all__ = ["local_output", "upload_checkpoint", "save", "restore"]


def upload_checkpoint(local_prefix: str, url_prefix: str, include_meta: bool = True,
                      meta_graph_suffix: str = "meta") -> list[str]:
    """Copies a local checkpoint to a URL prefix: data files, then ``.meta``, the index last; returns URLs."""
    directory, name = os.path.split(local_prefix)
    files = sorted(f for f in os.listdir(directory or ".")
                   if f.startswith(name + ".") and DATA_SUFFIX.search(f[len(name):]))
    if include_meta and os.path.exists(f"{local_prefix}.{meta_graph_suffix}"):
        files.append(f"{name}.{meta_graph_suffix}")
    if os.path.exists(local_prefix + ".index"):
        files.append(name + ".index")
    written = []
    for filename in files:
        with open(os.path.join(directory, filename), "rb") as file:
            target = url_prefix + filename[len(name):]
            file_io.write_bytes(target, file.read())
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
    """``saver.save`` to a URL (Saver.save calls it for URLs): the checkpoint is written to a private
    temporary directory, uploaded (index last), and the saver's retention and ``<dir>/checkpoint`` state
    file are kept as for a local save; returns the checkpoint's URL prefix (None for an empty saver)."""
    options = dict(global_step=global_step, latest_filename=latest_filename, meta_graph_suffix=meta_graph_suffix,
                   write_meta_graph=write_meta_graph, strip_default_attrs=strip_default_attrs,
                   save_debug_info=save_debug_info)
    local = file_io.local_path(url_prefix)
    if local is not None:
        return saver.save(sess, local, write_state=write_state, **options)
    directory, name = file_io.split(url_prefix)
    if not name:  # TF's relpath error for a save path that names no file ("" or "dir/")
        raise ValueError(f"no path specified: {url_prefix!r} names a directory, not a checkpoint prefix in it")
    staging = tempfile.mkdtemp(prefix="tf1-saver-remote-")
    try:
        written = saver.save(sess, os.path.join(staging, name), write_state=False, **options)
        staged = sorted({f.rsplit(".", 1)[0] for f in os.listdir(staging) if DATA_SUFFIX.search(f)
                         or f.endswith((".index", "." + meta_graph_suffix))})
        file_io.makedirs(directory)
        for local_prefix in staged:  # a sharded V1 save or an empty saver's lone .meta included
            stem = os.path.basename(local_prefix)
            upload_checkpoint(os.path.join(staging, stem), file_io.join(directory, stem), write_meta_graph,
                              meta_graph_suffix)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    if written is None:
        return None
    target = file_io.join(directory, os.path.basename(written))
    saver._written.add(target)  # retention may delete what this Saver wrote, and nothing else
    if write_state:
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
