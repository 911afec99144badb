"""Tests for graph/platform/gfile.py: the same tf.gfile session on a temporary directory under TF and ours."""

import os

import pytest

from graph import errors
from graph.platform import gfile


def _session(gfile_module, root: str) -> list:
    """Runs one fixed sequence of tf.gfile calls in ``root``; each outcome with ``root`` replaced by ``D``."""
    outcomes = []

    def step(name, call):
        try:
            value = call()
        except Exception as error:  # noqa: BLE001  (the error class and message are the outcome)
            value = (type(error).__name__, str(error).replace(root, "D"))
        if isinstance(value, str):
            value = value.replace(root, "D")
        outcomes.append((name, value))

    path = os.path.join(root, "a.txt")
    step("read missing", lambda: gfile_module.GFile(path).read())
    step("exists missing", lambda: gfile_module.Exists(path))
    step("remove missing", lambda: gfile_module.Remove(path))
    step("delete missing", lambda: gfile_module.DeleteRecursively(os.path.join(root, "nope")))
    step("list missing", lambda: gfile_module.ListDirectory(os.path.join(root, "nope")))
    step("stat missing", lambda: gfile_module.Stat(path))
    step("mkdir without parent", lambda: gfile_module.MkDir(os.path.join(root, "x", "y")))
    step("makedirs", lambda: gfile_module.MakeDirs(os.path.join(root, "x", "y")))
    step("mkdir existing", lambda: gfile_module.MkDir(os.path.join(root, "x")))
    step("makedirs existing", lambda: gfile_module.MakeDirs(os.path.join(root, "x")))
    with gfile_module.GFile(path, "w") as file:
        file.write("line1\nline2\n")
        file.write(b"bytes \xc3\xa9\n")
    step("read", lambda: gfile_module.GFile(path).read())
    step("read binary", lambda: gfile_module.GFile(path, "rb").read())
    step("readline", lambda: gfile_module.GFile(path).readline())
    step("readlines", lambda: gfile_module.GFile(path).readlines())
    step("iterate", lambda: list(gfile_module.GFile(path)))
    step("iterate binary", lambda: list(gfile_module.GFile(path, "rb")))
    step("read 3", lambda: gfile_module.GFile(path).read(3))
    step("size", lambda: gfile_module.GFile(path).size())

    def seek_and_tell():
        file = gfile_module.GFile(path)
        file.seek(6)
        first = file.read(5)
        return first, file.tell()

    step("seek", seek_and_tell)
    step("stat", lambda: (gfile_module.Stat(path).length, gfile_module.Stat(path).is_directory,
                          gfile_module.Stat(path).mtime_nsec == int(os.stat(path).st_mtime) * 10**9))
    step("stat dir", lambda: gfile_module.Stat(root).is_directory)
    copy = os.path.join(root, "b.txt")
    step("copy", lambda: gfile_module.Copy(path, copy))
    step("copy onto existing", lambda: gfile_module.Copy(path, copy))
    step("copy overwrite", lambda: gfile_module.Copy(path, copy, overwrite=True))
    step("copy missing", lambda: gfile_module.Copy(path + "zz", os.path.join(root, "c.txt")))
    step("rename onto existing", lambda: gfile_module.Rename(path, copy))
    step("rename", lambda: gfile_module.Rename(copy, os.path.join(root, "x", "c.txt")))
    step("rename missing", lambda: gfile_module.Rename(os.path.join(root, "zz"), os.path.join(root, "x", "d.txt")))
    step("glob", lambda: sorted(p.replace(root, "D") for p in gfile_module.Glob(os.path.join(root, "*"))))
    step("glob nothing", lambda: gfile_module.Glob(os.path.join(root, "nothing*")))
    step("list", lambda: sorted(gfile_module.ListDirectory(root)))
    step("list a file", lambda: gfile_module.ListDirectory(path))
    step("is directory", lambda: (gfile_module.IsDirectory(root), gfile_module.IsDirectory(path),
                                  gfile_module.IsDirectory(path + "q")))
    step("walk", lambda: [(a.replace(root, "D"), sorted(b), sorted(c)) for a, b, c in gfile_module.Walk(root)])
    step("walk bottom up", lambda: [a.replace(root, "D") for a, _, _ in gfile_module.Walk(root, in_order=False)])
    step("walk missing", lambda: list(gfile_module.Walk(os.path.join(root, "nope"))))
    step("remove a directory", lambda: gfile_module.Remove(os.path.join(root, "x")))
    step("delete recursively", lambda: gfile_module.DeleteRecursively(os.path.join(root, "x")))
    step("after delete", lambda: gfile_module.Exists(os.path.join(root, "x")))

    def append():
        with gfile_module.GFile(path, "a") as file:
            file.write("z")
        return gfile_module.GFile(path).read()

    step("append", append)
    step("write to a reader", lambda: gfile_module.GFile(path, "r").write("q"))
    step("read from a writer", lambda: gfile_module.GFile(path + "w", "w").read())
    step("bad mode", lambda: gfile_module.GFile(path, "x"))
    step("write below a missing directory", lambda: gfile_module.GFile(os.path.join(root, "nope", "f"), "w").write("a"))
    step("FastGFile", lambda: gfile_module.FastGFile(path, "rb").read())
    step("Open", lambda: gfile_module.Open(path).read())
    step("mode and name", lambda: (gfile_module.GFile(path, "rb").mode, gfile_module.GFile(path).name == path))
    step("remove", lambda: (gfile_module.Remove(path), gfile_module.Exists(path)))
    return outcomes


@pytest.mark.tf
def test_same_outcomes_as_tensorflow(tf_module, tmp_path):
    ours_root, tf_root = tmp_path / "ours", tmp_path / "tf"
    ours_root.mkdir()
    tf_root.mkdir()
    ours = _session(gfile, str(ours_root))
    theirs = _session(tf_module.gfile, str(tf_root))
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    for (name, mine), (_, reference) in zip(ours, theirs):
        assert mine == reference, name


def test_errors_are_tensorflow_classes(tmp_path):
    missing = str(tmp_path / "missing")
    with pytest.raises(errors.NotFoundError, match=f"{missing}; No such file or directory"):
        gfile.GFile(missing).read()
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        gfile.Remove(str(tmp_path))
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Copy(str(tmp_path), str(tmp_path))


def test_fsspec_urls():
    pytest.importorskip("fsspec")
    root = "memory://gfile_test"
    gfile.MakeDirs(root + "/d")
    with gfile.GFile(root + "/d/f.txt", "w") as file:
        file.write("one\ntwo\n")
    assert gfile.Exists(root + "/d/f.txt") and gfile.IsDirectory(root + "/d")
    assert list(gfile.GFile(root + "/d/f.txt")) == ["one\n", "two\n"]
    assert gfile.Stat(root + "/d/f.txt").length == 8
    assert gfile.ListDirectory(root) == ["d"] and gfile.ListDirectory(root + "/d") == ["f.txt"]
    gfile.Copy(root + "/d/f.txt", root + "/g.txt")
    gfile.Rename(root + "/g.txt", root + "/h.txt")
    assert gfile.Glob(root + "/*.txt") == [root + "/h.txt"]
    assert [(top, dirs, files) for top, dirs, files in gfile.Walk(root)] == [
        (root, ["d"], ["h.txt"]), (root + "/d", [], ["f.txt"])]
    with pytest.raises(errors.NotFoundError, match="memory://gfile_test/none; No such file or directory"):
        gfile.GFile(root + "/none").read()
    gfile.DeleteRecursively(root)
    assert not gfile.Exists(root + "/h.txt")
