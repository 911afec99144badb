"""Tests for graph/platform/gfile_v2.py: tf.io.gfile's TF2 spellings, the same session under TF and ours."""

import os

import pytest

import graph.compat.v1 as ours


def _session(gfile, root: str) -> list:
    """One fixed sequence of tf.io.gfile calls in ``root``; each outcome with ``root`` replaced by ``D``."""
    outcomes = []

    def step(name, call):
        try:
            value = call()
        except Exception as error:  # noqa: BLE001  (the error class and message are the outcome)
            value = (type(error).__name__, str(error).replace(root, "D"))
        outcomes.append((name, repr(value).replace(root, "D")))

    def at(*parts):
        return os.path.join(root, *parts)

    step("exists missing", lambda: gfile.exists(at("a.txt")))
    step("listdir missing", lambda: gfile.listdir(at("nope")))
    step("remove missing", lambda: gfile.remove(at("a.txt")))
    step("rmtree missing", lambda: gfile.rmtree(at("nope")))
    step("mkdir without parent", lambda: gfile.mkdir(at("x", "y")))
    step("makedirs", lambda: gfile.makedirs(at("x", "y", "z")))
    step("mkdir existing", lambda: gfile.mkdir(at("x")))
    with gfile.GFile(at("a.txt"), "w") as file:
        file.write("hello\n")
    with gfile.GFile(at("x", "y", "b.bin"), "wb") as file:
        file.write(b"\x00\x01")
    step("exists", lambda: gfile.exists(at("a.txt")))
    step("isdir", lambda: (gfile.isdir(at("x")), gfile.isdir(at("a.txt"))))
    step("listdir", lambda: sorted(gfile.listdir(root)))
    step("glob", lambda: sorted(gfile.glob(at("*.txt"))))
    step("stat", lambda: (gfile.stat(at("a.txt")).length, gfile.stat(at("x")).is_directory))
    step("copy", lambda: gfile.copy(at("a.txt"), at("c.txt")))
    step("copy onto existing", lambda: gfile.copy(at("a.txt"), at("c.txt")))
    step("copy overwrite", lambda: gfile.copy(at("a.txt"), at("c.txt"), overwrite=True))
    step("rename onto existing", lambda: gfile.rename(at("c.txt"), at("a.txt")))
    step("rename", lambda: gfile.rename(at("c.txt"), at("d.txt")))
    step("read renamed", lambda: gfile.GFile(at("d.txt")).read())
    for topdown in (True, False):
        step(f"walk topdown={topdown}",
             lambda topdown=topdown: [(top, sorted(dirs), sorted(files)) for top, dirs, files in
                                      gfile.walk(root, topdown=topdown)])
    step("walk into a file", lambda: list(gfile.walk(at("a.txt"))))
    step("remove", lambda: gfile.remove(at("d.txt")))
    step("rmtree", lambda: gfile.rmtree(at("x")))
    step("listdir after", lambda: sorted(gfile.listdir(root)))
    return outcomes


@pytest.mark.tf
def test_the_same_session_gives_what_tensorflow_gives(tf_module, tmp_path):
    (tmp_path / "tf").mkdir()
    (tmp_path / "ours").mkdir()
    theirs = _session(tf_module.io.gfile, str(tmp_path / "tf"))
    mine = _session(ours.io.gfile, str(tmp_path / "ours"))
    assert mine == theirs


@pytest.mark.tf
def test_join_as_tensorflow_joins(tf_module):
    for parts in (("gs://a/", "b"), ("gs://a", "/b"), ("gs://a", "b/", "c"), ("gs://a", "gs://x/y"), ("gs://a", ""),
                  ("/a", "/b"), ("a", "b/", "c"), ("memory://x", "y"), ("a",)):
        assert ours.io.gfile.join(*parts) == tf_module.io.gfile.join(*parts), parts


def test_walk_reports_an_unlistable_top_to_onerror(tmp_path):
    # TF 2.21's walk_v2 fails here with UnboundLocalError (its own bug); ours reports the listing's error, as the
    # onerror argument promises, and yields nothing.
    seen = []
    assert list(ours.io.gfile.walk(str(tmp_path / "nope"), onerror=seen.append)) == []
    assert [type(error).__name__ for error in seen] == ["NotFoundError"]
    assert str(tmp_path / "nope") in str(seen[0])


def test_gfile_is_the_tf1_class_and_local_schemes_are_registered():
    assert ours.io.gfile.GFile is ours.gfile.GFile
    assert {"", "file"} <= set(ours.io.gfile.get_registered_schemes())


@pytest.mark.tf
def test_names_are_tensorflows(tf_module):
    mine = {name for name in dir(ours.io.gfile) if not name.startswith("_")}
    assert mine == {name for name in dir(tf_module.io.gfile) if not name.startswith("_")}
