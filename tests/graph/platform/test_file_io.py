"""Tests for graph/platform/file_io.py: paths and URLs, the one atomic write, TF errors naming the file."""

import ast
import os
import secrets
import stat

import pytest

from graph import errors
from graph.platform import file_io


def test_url_recognition():
    assert file_io.is_url("memory://x") and file_io.is_url("s3://bucket/k") and file_io.is_url("file:///tmp/x")
    assert not file_io.is_url("/tmp/x") and not file_io.is_url("c:relative")
    assert file_io.local_path("file:///tmp/x") == "/tmp/x" and file_io.local_path("model.ckpt") == "model.ckpt"
    assert file_io.local_path("memory://x") is None


def test_join_split_isabs_relpath_for_paths_and_urls():
    assert file_io.join("memory://d", "m") == "memory://d/m" and file_io.join("memory://", "m") == "memory://m"
    assert file_io.join("a/b", "c") == os.path.join("a/b", "c")
    assert file_io.split("memory://d/e/m") == ("memory://d/e", "m")
    assert file_io.split("memory://m") == ("memory://", "m")
    assert file_io.split("a/b/c") == ("a/b", "c")
    assert file_io.isabs("memory://x") and file_io.isabs("/x") and not file_io.isabs("x/y")
    assert file_io.relpath("memory://d/m-1", "memory://d") == "m-1" and file_io.relpath("/a/b/c", "/a") == "b/c"
    assert file_io.glob_escape("a[1]*?") == "a[[]1[]][*][?]"


def test_unknown_protocol_names_the_fix():
    with pytest.raises(ImportError, match="backend"):
        file_io.filesystem("nosuchprotocol://x")


def test_atomic_file_renames_only_on_success(tmp_path):
    path = tmp_path / "out.bin"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with file_io.atomic_file(str(path)) as file:
            file.write(b"half")
            assert [p.name for p in tmp_path.iterdir() if "tempstate" in p.name]  # written beside the target
            raise RuntimeError("interrupted")
    assert path.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]
    with file_io.atomic_file(str(path)) as file:
        file.write(b"new")
    assert path.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_atomic_file_fsyncs_the_temporary_file_before_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))),
                                                 real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda src, dst: (events.append(("replace", src)), real_replace(src, dst))[1])
    file_io.write_bytes(str(tmp_path / "f"), b"data")
    assert [kind for kind, _ in events] == ["fsync", "replace"]
    assert events[0][1] == events[1][1] and os.path.dirname(events[0][1]) == str(tmp_path)
    assert (tmp_path / "f").read_bytes() == b"data"


def test_atomic_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        with file_io.atomic_file(tmp_path / "p.svg") as file:
            file.write(b"<svg/>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "p.svg").st_mode) == 0o644  # readable by others, as open() makes it


def test_atomic_file_with_a_named_temporary_and_a_failed_rename(tmp_path):
    target = tmp_path / "dir_in_the_way"
    target.mkdir()
    (target / "x").write_bytes(b"")
    seen = []

    def temp_name(path):
        seen.append(path + ".tmpXYZ")
        return seen[-1]
    with pytest.raises(OSError):
        with file_io.atomic_file(str(target), temp_name) as file:
            file.write(b"data")
    assert seen == [str(target) + ".tmpXYZ"] and not os.path.exists(seen[0])


def test_write_bytes_errors_name_the_file(tmp_path):
    with pytest.raises(errors.NotFoundError, match=r"no_dir/f; No such file") as raised:  # not its temp name
        file_io.write_bytes(str(tmp_path / "no_dir" / "f"), b"x")
    assert "tempstate" not in str(raised.value)
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x").write_bytes(b"")
    with pytest.raises(errors.OpError, match=r"/d; "):  # renaming onto a non-empty directory
        file_io.write_bytes(str(tmp_path / "d"), b"x")
    assert sorted(os.listdir(tmp_path)) == ["d"]


def test_read_bytes_exists_glob_remove_mtime_locally(tmp_path):
    with pytest.raises(errors.NotFoundError, match="missing; No such file"):
        file_io.read_bytes(str(tmp_path / "missing"))
    file_io.write_bytes(str(tmp_path / "a.1"), b"one")
    file_io.write_bytes("file://" + str(tmp_path / ".a.2"), b"two")
    assert file_io.read_bytes("file://" + str(tmp_path / "a.1")) == b"one"
    assert file_io.exists(str(tmp_path / ".a.2")) and file_io.isdir(str(tmp_path))
    assert file_io.glob(str(tmp_path / "*a.?")) == [str(tmp_path / ".a.2"), str(tmp_path / "a.1")]  # hidden too
    assert file_io.glob(str(tmp_path / "a.1")) == [str(tmp_path / "a.1")] and file_io.glob(str(tmp_path / "b")) == []
    assert file_io.mtime_seconds(str(tmp_path / "a.1")) == float(int(os.stat(tmp_path / "a.1").st_mtime))
    file_io.remove(str(tmp_path / "a.1"))
    with pytest.raises(FileNotFoundError):
        file_io.remove(str(tmp_path / "a.1"))
    file_io.makedirs(str(tmp_path / "x" / "y"))
    assert (tmp_path / "x" / "y").is_dir()


def test_the_same_calls_on_an_fsspec_url():
    fsspec = pytest.importorskip("fsspec")
    root = f"memory://file-io-{secrets.token_hex(4)}"
    try:
        with pytest.raises(errors.NotFoundError, match="No such file"):
            file_io.read_bytes(root + "/missing")
        file_io.makedirs(root + "/d")
        file_io.write_bytes(root + "/d/a.1", b"one")
        file_io.write_bytes(root + "/d/a.2", b"two")
        assert file_io.read_bytes(root + "/d/a.1") == b"one" and file_io.isdir(root + "/d")
        assert file_io.glob(root + "/d/a.*") == [root + "/d/a.1", root + "/d/a.2"]
        assert not [p for p in fsspec.filesystem("memory").ls(root[len("memory://"):] + "/d", detail=False)
                    if "tempstate" in p]  # moved into place
        assert file_io.mtime_seconds(root + "/d/a.1") > 0
        file_io.remove(root + "/d/a.1")
        assert not file_io.exists(root + "/d/a.1")
        with pytest.raises(FileNotFoundError):
            file_io.remove(root + "/d/a.1")
    finally:
        fs = fsspec.filesystem("memory")
        if fs.exists(root[len("memory://"):]):
            fs.rm(root[len("memory://"):], recursive=True)


def test_platform_imports_only_graph_base():
    package = os.path.dirname(file_io.__file__)
    for name in os.listdir(package):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(package, name), encoding="utf-8") as source:
            tree = ast.parse(source.read())
        for node in ast.walk(tree):  # inside functions too
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{node.module}.{a.name}" if node.module == "graph" else node.module or "" for a in node.names] \
                if isinstance(node, ast.ImportFrom) else []
            for module in modules:
                if module.split(".")[0] in ("graph", "saver"):
                    assert module.startswith(("graph.base", "graph.errors", "graph.platform")), f"{name} imports {module}"
