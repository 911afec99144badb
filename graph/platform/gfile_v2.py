"""``tf.io.gfile``: TensorFlow 2's spelling of the file API (``exists``, ``listdir``, ``walk``, ...) over `gfile`.

TF1 code from 1.13 on writes ``tf.io.gfile.exists(path)`` where older code wrote ``tf.gfile.Exists(path)``: the
same operations (the same GFile class, the same errors), with TF2's arguments: ``walk(top, topdown, onerror)``
in place of ``Walk(top, in_order)``, and a ``join`` that keeps URLs' slashes.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterator

from graph import errors
from graph.platform import gfile
from graph.platform.gfile import GFile

__all__ = ["GFile", "exists", "isdir", "listdir", "glob", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat",
           "walk", "copy", "join", "get_registered_schemes"]

exists = gfile.Exists
isdir = gfile.IsDirectory
listdir = gfile.ListDirectory
glob = gfile.Glob
makedirs = gfile.MakeDirs
mkdir = gfile.MkDir
remove = gfile.Remove
rename = gfile.Rename
rmtree = gfile.DeleteRecursively
stat = gfile.Stat
copy = gfile.Copy


def walk(top: str, topdown: bool = True,
         onerror: Callable[[errors.OpError], None] | None = None) -> Iterator[tuple[str, list[str], list[str]]]:
    """``(directory, subdirectory names, file names)`` for ``top`` and every directory below it.

    ``topdown`` yields a directory before its subdirectories, else after.  A directory that cannot be listed is
    skipped; ``onerror`` (if given) is called with its NotFoundError first.
    """
    try:
        names = listdir(top)
    except errors.NotFoundError as error:
        if onerror is not None:
            onerror(error)
        return
    subdirs, files = [], []
    for name in names:
        (subdirs if isdir(join(top, name)) else files).append(name)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from walk(join(top, subdir), topdown, onerror)
    if not topdown:
        yield here


def join(path: str, *paths: str) -> str:
    """Path components joined as TF joins them: by ``/`` (``posixpath.join``) for a URL (an absolute component
    restarts the path, as TF's), by ``os.path.join`` for a local path."""
    path = os.fspath(path)
    if "://" in path[1:]:
        return posixpath.join(path, *paths)
    return os.path.join(path, *paths)


def get_registered_schemes() -> list[str]:
    """The URL schemes paths may use: local files (``""``, ``file``) and, with fsspec installed, its protocols."""
    try:
        import fsspec  # optional: only URLs need it
    except ImportError:
        return ["", "file"]
    return ["", "file", *sorted(set(fsspec.available_protocols()) - {"file"})]
