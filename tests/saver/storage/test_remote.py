"""saver/storage/remote.py (and URL reading in saver/storage/reader.py): checkpoints at fsspec URLs, tested on
the in-memory filesystem."""

import os
import secrets

import numpy as np
import pytest

fsspec = pytest.importorskip("fsspec")

import graph.compat.v1 as tf  # noqa: E402
from graph.errors import NotFoundError  # noqa: E402
from graph.core.graph import Graph  # noqa: E402
from graph.platform import file_io  # noqa: E402
from saver.storage import reader as reader_lib  # noqa: E402
from saver.storage import remote  # noqa: E402
from saver.storage import state as state_lib  # noqa: E402
from saver.format.bundle import write_checkpoint  # noqa: E402
from saver.storage.reader import list_variables, load_checkpoint, load_variable  # noqa: E402

from tests import TEST_DATA

DATA = TEST_DATA


@pytest.fixture
def memory_dir():
    """A fresh directory URL on fsspec's memory filesystem, removed afterwards."""
    url = f"memory://tests-{secrets.token_hex(4)}"
    yield url
    fs = fsspec.filesystem("memory")
    if fs.exists(url[len("memory://"):]):
        fs.rm(url[len("memory://"):], recursive=True)


def test_write_then_read_through_memory(memory_dir):
    url = memory_dir + "/model.ckpt"
    with remote.local_output(url) as local:
        assert not file_io.is_url(local)
        write_checkpoint(local, {"w": np.arange(4, dtype=np.float32), "s": np.array(b"text", dtype=object)})
    files = reader_lib.checkpoint_files(url)
    assert [f.rsplit("/", 1)[1] for f in files] == ["model.ckpt.data-00000-of-00001", "model.ckpt.index"]
    with load_checkpoint(url) as reader:  # tf.train.load_checkpoint takes URLs
        assert reader.get_tensor("w").tolist() == [0, 1, 2, 3]
        assert reader.get_tensor("s") == b"text"
        assert reader.prefix == url  # read in place by byte ranges (test_remote_ranged.py), nothing staged
    assert list_variables(url + ".index") == [("s", []), ("w", [4])]
    assert load_variable(url, "w:0").tolist() == [0, 1, 2, 3]


def test_no_temporary_files_left_remotely(memory_dir):
    with remote.local_output(memory_dir + "/m") as local:
        write_checkpoint(local, {"v": [1.0]})
    fs = fsspec.filesystem("memory")
    names = sorted(p.rsplit("/", 1)[1] for p in fs.ls(memory_dir[len("memory://"):], detail=False))
    assert names == ["m.data-00000-of-00001", "m.index"]


def test_failed_write_uploads_nothing(memory_dir):
    with pytest.raises(RuntimeError):
        with remote.local_output(memory_dir + "/m") as local:
            write_checkpoint(local, {"v": [1.0]})
            raise RuntimeError("training crashed")
    with pytest.raises(NotFoundError):
        reader_lib.checkpoint_files(memory_dir + "/m")


def test_saver_save_and_restore_with_state_file(memory_dir):
    with Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = remote.save(saver, sess, memory_dir + "/model.ckpt", global_step=1)
            sess.run(v.assign([5.0, 6.0]))
            second = remote.save(saver, sess, memory_dir + "/model.ckpt", global_step=2)
        assert first.endswith("/model.ckpt-1") and second.endswith("/model.ckpt-2")
        state = file_io.read_bytes(memory_dir + "/checkpoint").decode()  # absolute, as TF (save_relative_paths)
        assert state == (f'model_checkpoint_path: "{second}"\nall_model_checkpoint_paths: "{first}"\n'
                         f'all_model_checkpoint_paths: "{second}"\n')
        assert state_lib.latest_checkpoint(memory_dir) == second
        with tf.Session() as sess:
            saver.restore(sess, memory_dir)  # a directory: its newest checkpoint
            assert sess.run(v).tolist() == [5.0, 6.0]
            saver.restore(sess, first)
            assert sess.run(v).tolist() == [1.0, 2.0]
    assert reader_lib.checkpoint_files(second)[-1].endswith(".index")
    assert file_io.exists(second + ".meta")  # the meta graph travels with the checkpoint


def test_copy_of_a_tf_written_directory(memory_dir):
    fs = fsspec.filesystem("memory")
    guide = os.path.join(DATA, "tf2_guide")
    for name in os.listdir(guide):
        fs.put_file(os.path.join(guide, name), memory_dir[len("memory://"):] + "/" + name)
    with load_checkpoint(memory_dir) as reader, load_checkpoint(guide) as local:
        assert reader.get_variable_to_shape_map() == local.get_variable_to_shape_map()
        key = "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"
        assert np.array_equal(reader.get_tensor(key), local.get_tensor(key))


def test_file_urls_are_used_in_place(tmp_path):
    prefix = str(tmp_path / "m")
    write_checkpoint(prefix, {"x": [3]})
    with load_checkpoint("file://" + prefix) as reader:
        assert reader.prefix == prefix
    with remote.local_output("file://" + str(tmp_path / "n")) as local:
        assert local == str(tmp_path / "n")


def test_missing_remote_checkpoints(memory_dir):
    with pytest.raises(NotFoundError, match="index"):
        load_checkpoint(memory_dir + "/nothing")
    fsspec.filesystem("memory").makedirs(memory_dir[len("memory://"):], exist_ok=True)
    with pytest.raises(NotFoundError, match="checkpoint"):
        load_checkpoint(memory_dir)
    assert state_lib.latest_checkpoint(memory_dir) is None
    with pytest.raises(NotFoundError):
        file_io.read_bytes(memory_dir + "/checkpoint")


def test_command_line_reads_and_writes_urls(memory_dir, capsys):
    from saver.cli import main
    guide = os.path.join(DATA, "tf2_guide")
    assert main(["keep", guide, "net/*", "-o", memory_dir + "/net"]) == 0
    assert main(["inspect", memory_dir + "/net", "--json"]) == 0
    assert main(["keep", guide, "net/*", "-o", memory_dir + "/net"]) == 6  # exists remotely
    assert main(["rename", memory_dir + "/net", "--add-prefix", "x/", "--in-place"]) == 2  # local only
    out = capsys.readouterr().out
    assert "net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE" in out


def test_saver_save_and_restore_take_urls_with_retention(memory_dir):
    from saver.storage import state
    fs = fsspec.filesystem("memory")
    with Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        step = tf.train.get_or_create_global_step()
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            paths = []
            for number in (1, 2, 3):
                sess.run([v.assign([number, -number]), step.assign(number)])
                paths.append(saver.save(sess, memory_dir + "/run/model.ckpt", global_step=step))
        assert paths == [memory_dir + f"/run/model.ckpt-{n}" for n in (1, 2, 3)]
        names = sorted(p.rsplit("/", 1)[1] for p in fs.ls(memory_dir[len("memory://"):] + "/run", detail=False))
        assert names == ["checkpoint"] + [f"model.ckpt-{n}.{ext}" for n in (2, 3)
                                          for ext in ("data-00000-of-00001", "index", "meta")]  # -1 deleted
        assert tf.train.latest_checkpoint(memory_dir + "/run") == paths[2]
        checkpoint_state = tf.train.get_checkpoint_state(memory_dir + "/run")
        assert checkpoint_state.all_model_checkpoint_paths == paths[1:]
        assert saver.last_checkpoints == paths[1:]
        assert state.get_checkpoint_mtimes(paths) and not state.checkpoint_exists(paths[0])
        with tf.Session() as sess:
            saver.restore(sess, paths[1])
            assert sess.run(v).tolist() == [2.0, -2.0] and sess.run(step) == 2
            saver.restore(sess, memory_dir + "/run")  # a directory: its newest checkpoint
            assert sess.run(v).tolist() == [3.0, -3.0]
    with load_checkpoint(paths[2]) as reader:
        assert reader.get_tensor("v").tolist() == [3.0, -3.0] and reader.get_tensor("global_step") == 3


def test_saver_save_options_pass_through_for_urls(memory_dir, tmp_path):
    with Graph().as_default():
        tf.Variable([1.0], name="v")
        saver = tf.train.Saver(save_relative_paths=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = saver.save(sess, memory_dir + "/m", latest_filename="latest", meta_graph_suffix="mg")
            assert file_io.read_bytes(memory_dir + "/latest").decode() == \
                'model_checkpoint_path: "m"\nall_model_checkpoint_paths: "m"\n'
            assert file_io.exists(memory_dir + "/m.mg") and not file_io.exists(memory_dir + "/checkpoint")
            assert tf.train.latest_checkpoint(memory_dir, latest_filename="latest") == first
            second = saver.save(sess, memory_dir + "/n", write_meta_graph=False, write_state=False)
            assert file_io.exists(second + ".index") and not file_io.exists(second + ".meta")
            assert tf.train.latest_checkpoint(memory_dir, latest_filename="latest") == first
            local = saver.save(sess, "file://" + str(tmp_path / "f"))  # file:// is used in place
            assert local == str(tmp_path / "f") and os.path.exists(local + ".index")
            assert tf.train.latest_checkpoint("file://" + str(tmp_path)) == "file://" + local
            saver.restore(sess, "file://" + local)
        with pytest.raises(NotFoundError):
            saver.restore(None, memory_dir + "/nothing")
