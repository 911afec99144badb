"""A simulated power cut: which files and names of one directory would survive, at every moment of a run.

``Recorder(directory)`` wraps ``os.open``, ``builtins.open``, ``os.fsync``, ``os.replace``, ``os.rename``,
``os.remove`` and ``os.unlink`` while a save or edit runs in-process, and keeps, after every event:

* the names of the directory -> the file (inode) each names now;
* each file's *durable* content: its bytes at its last ``fsync`` (read back through /proc/self/fd),
  empty if it was never synced -- every write not yet synced is dropped;
* the last directory ``fsync``: names are durable only up to it.

A power cut after event ``k`` may have kept any prefix of the name changes (renames, creations,
removals: journaled in order) that includes every change before the last directory fsync, so
:meth:`Recorder.outcomes` yields, for each ``k``, every such prefix ``j``.  :func:`materialize` writes
what the disk would hold into a fresh directory.  Files existing before the recording are durable.
"""

from __future__ import annotations

import builtins
import os
import stat

__all__ = ["Recorder", "materialize"]

_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Recorder:
    """Records the file-system events of one directory (see the module docstring)."""

    def __init__(self, directory: str):
        self.directory = os.path.abspath(directory)
        self._saved = None
        self._next_inode = 0
        self._fds: dict[int, object] = {}           # fd -> inode number, or "dir"
        self._content: dict[int, bytes] = {}        # inode -> durable bytes
        self._names: dict[str, int] = {}            # base name -> inode
        self._original = open
        for name in sorted(os.listdir(self.directory)):
            path = os.path.join(self.directory, name)
            if os.path.isfile(path):
                inode = self._new_inode()
                with open(path, "rb") as file:
                    self._content[inode] = file.read()
                self._names[name] = inode
        self.names_after: list[dict[str, int]] = [dict(self._names)]   # index 0: before any event
        self.content_after: list[dict[int, bytes]] = [dict(self._content)]
        self.floor_after: list[int] = [0]                              # last dir-synced name state
        self.kinds: list[str] = ["start"]

    def _new_inode(self) -> int:
        self._next_inode += 1
        self._content[self._next_inode] = b""
        return self._next_inode

    def _mine(self, path) -> str | None:
        if isinstance(path, int):
            return None
        path = os.path.abspath(os.fspath(path))
        return os.path.basename(path) if os.path.dirname(path) == self.directory else None

    def _event(self, kind: str) -> None:
        self.kinds.append(kind)
        self.names_after.append(dict(self._names))
        self.content_after.append(dict(self._content))
        self.floor_after.append(self.floor_after[-1])

    # ------------------------------------------------------------------------------------- wrappers

    def _opened(self, path, fd: int, writing: bool, truncating: bool) -> None:
        if isinstance(path, int):
            return
        if os.path.abspath(os.fspath(path)) == self.directory:
            self._fds[fd] = "dir"  # opened to be fsynced
            return
        name = self._mine(path)
        if name is None or not writing:
            self._fds.pop(fd, None)  # a reused descriptor number
            return
        if truncating or name not in self._names:
            self._names[name] = self._new_inode()
            self._fds[fd] = self._names[name]
            self._event("create " + name)
        else:
            self._fds[fd] = self._names[name]

    def install(self) -> None:
        """Starts recording."""
        saved = self._saved = {"os_open": os.open, "open": builtins.open, "fsync": os.fsync,
                               "replace": os.replace, "rename": os.rename, "remove": os.remove,
                               "unlink": os.unlink}
        recorder = self

        def os_open(path, flags, *args, **kwargs):
            fd = saved["os_open"](path, flags, *args, **kwargs)
            recorder._opened(path, fd, bool(flags & _WRITE), bool(flags & (os.O_TRUNC | os.O_EXCL)))
            return fd

        def open_(file, mode="r", *args, **kwargs):
            result = saved["open"](file, mode, *args, **kwargs)
            if not isinstance(file, int):
                writing = any(c in mode for c in "wax+")
                recorder._opened(file, result.fileno(), writing, any(c in mode for c in "wx"))
            return result

        def fsync(fd):
            saved["fsync"](fd)
            target = recorder._fds.get(fd)
            if target == "dir":
                recorder._event("fsync directory")
                recorder.floor_after[-1] = len(recorder.kinds) - 1
            elif target is not None:
                with saved["open"](f"/proc/self/fd/{fd}", "rb") as file:
                    recorder._content[target] = file.read()
                recorder._event("fsync file")

        def move(kind):
            def call(src, dst, *args, **kwargs):
                saved[kind](src, dst, *args, **kwargs)
                source, target = recorder._mine(src), recorder._mine(dst)
                if source is not None and source in recorder._names:
                    inode = recorder._names.pop(source)
                    if target is not None:
                        recorder._names[target] = inode
                    recorder._event(f"{kind} {source} -> {target}")
            return call

        def delete(kind):
            def call(path, *args, **kwargs):
                saved[kind](path, *args, **kwargs)
                name = recorder._mine(path)
                if name is not None and recorder._names.pop(name, None) is not None:
                    recorder._event(f"{kind} {name}")
            return call

        os.open, builtins.open, os.fsync = os_open, open_, fsync
        os.replace, os.rename = move("replace"), move("rename")
        os.remove, os.unlink = delete("remove"), delete("unlink")

    def uninstall(self) -> None:
        """Stops recording."""
        saved, self._saved = self._saved, None
        if saved is not None:
            os.open, builtins.open, os.fsync = saved["os_open"], saved["open"], saved["fsync"]
            os.replace, os.rename, os.remove, os.unlink = (saved["replace"], saved["rename"], saved["remove"],
                                                           saved["unlink"])

    def __enter__(self) -> Recorder:
        self.install()
        return self

    def __exit__(self, *exc) -> None:
        self.uninstall()

    def outcomes(self):
        """Yields (k, j): a power cut after event k that kept the name changes of events 1..j."""
        for k in range(len(self.kinds)):
            for j in range(self.floor_after[k], k + 1):
                yield k, j


def materialize(recorder: Recorder, k: int, j: int, target: str) -> None:
    """Writes into ``target`` what the disk would hold after a power cut (see Recorder.outcomes)."""
    os.makedirs(target)
    content = recorder.content_after[k]
    for name, inode in recorder.names_after[j].items():
        with open(os.path.join(target, name), "wb") as file:
            file.write(content.get(inode, b""))
    assert all(stat.S_ISREG(os.stat(os.path.join(target, n)).st_mode) for n in os.listdir(target))
