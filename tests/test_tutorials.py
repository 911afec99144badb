"""tutorials/: each script runs without TensorFlow, tells its story, and writes only where it is told."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIALS = os.path.join(ROOT, "tutorials")

# A script run with `tensorflow` made unimportable: the tutorials must never need it.
RUNNER = ("import os, runpy, sys; sys.modules['tensorflow'] = None; sys.argv = sys.argv[1:]; "
          "sys.path.insert(0, os.path.dirname(sys.argv[0])); runpy.run_path(sys.argv[0], run_name='__main__')")

EXPECTED = {
    "01_variables.py": ["Model saved in path:", "weights restored: True", "renamed.ckpt holds: [('my_v2', [5])]",
                        "subset.ckpt holds:  [('v1', [3])]", "on_ps:0 -> /job:ps/task:0",
                        "w_twice == 2 * weights: True"],
    "02_uninitialized.py": ["FailedPreconditionError: Attempting to use uninitialized value weights",
                            "still uninitialized: ['biases']", "uninitialized now: []", "weights -> scaled/Assign"],
    "03_transfer.py": ["layer1/kernel restored: True", "layer4/kernel from the checkpoint: True",
                       "Restored 8 of 12 variables", "output shape (2, 3)"],
    "04_tf2_checkpoint.py": ["latest: ckpt-5", "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE -> net/kernel",
                             "step = 50", "dense/kernel = [[4.32"],
    "05_command_line.py": ["$ tf1-saver inspect", "layer1/kernel -> dense_1/kernel", "(exit code 1)",
                           "wrote", "(exit code 3)"],
    "06_training.py": ["fitted W = 2.997, b = 2.011", "latest checkpoint: model.ckpt-40", "resumed at global_step = 40",
                       "checkpoints kept (max_to_keep=2): ['model.ckpt-40', 'model.ckpt-60']", "identical: True"],
    "07_tf2_checkpoints.py": ["Initializing from scratch.", "Saved checkpoint for step 10: tf_ckpts/ckpt-1",
                              "Restored from tf_ckpts/ckpt-5", "kept: ['ckpt-8', 'ckpt-9', 'ckpt-10']",
                              "net/l1/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE", "step = 100",
                              "to_restore = [2.31 0.95 2.33 5.36 3.92]",
                              "kernel restored after the fact = [[4.6  5.   4.94 4.64 4.99]]",
                              "assert_consumed: Unresolved object in checkpoint (root).step"],
    "08_cnn_summaries.py": ["conv2d/kernel:0", "batch_normalization/moving_mean:0", "graph records: 1",
                            "loss                   at steps [10, 20, 30, 40, 50, 60]",
                            "same as before saving: True"],
    "09_input_pipeline.py": ["wrote 256 examples to points.tfrecord", "(child) killed at step 45",
                             "latest checkpoint: model.ckpt-40", "resumed at global_step = 40",
                             "finished at step 60: loss = 0.00054, fitted w = 2.95, b = -0.98",
                             "checkpoints kept: ['model.ckpt-0', 'model.ckpt-20', 'model.ckpt-40', 'model.ckpt-60']",
                             "queue pipeline read 256 records in 8 batches; OutOfRangeError ended the loop cleanly"],
}
WRITTEN = {
    "01_variables.py": ["model.ckpt.index", "renamed.ckpt.index", "subset.ckpt.index"],
    "02_uninitialized.py": ["variables.svg", "variables.dot"],
    "03_transfer.py": ["five_layers.ckpt.index"],
    "04_tf2_checkpoint.py": ["tf2_guide.svg"],
    "05_command_line.py": ["train/checkpoint", "weights.safetensors", "imported.index", "tf2_guide.svg"],
    "06_training.py": ["train/checkpoint", "train/model.ckpt-60.index", "train/model.ckpt-60.meta"],
    "07_tf2_checkpoints.py": ["tf_ckpts/checkpoint", "tf_ckpts/ckpt-10.index"],
    "08_cnn_summaries.py": ["cnn.ckpt-60.index", "logs"],
    "09_input_pipeline.py": ["points.tfrecord", "train/checkpoint", "train/model.ckpt-60.index", "train/graph.pbtxt"],
}


def _run(script, *args, cwd):
    return subprocess.run([sys.executable, "-c", RUNNER, os.path.join(TUTORIALS, script), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": ROOT})


def test_every_tutorial_is_tested():
    scripts = sorted(f for f in os.listdir(TUTORIALS) if f[:2].isdigit() and f.endswith(".py"))
    assert scripts == sorted(EXPECTED)


@pytest.mark.parametrize("script", sorted(EXPECTED))
def test_tutorial_runs_and_writes_only_under_its_dir(tmp_path, script):
    cwd, out = tmp_path / "cwd", tmp_path / "out"
    cwd.mkdir()
    result = _run(script, "--dir", str(out), cwd=cwd)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    for phrase in EXPECTED[script]:
        assert phrase in result.stdout, (phrase, result.stdout[-3000:])
    for name in WRITTEN[script]:
        assert (out / name).exists(), name
    assert list(cwd.iterdir()) == []  # nothing written where it was run
    for svg in out.rglob("*.svg"):
        ElementTree.parse(svg)


def test_default_directory_is_temporary_and_removed(tmp_path):
    import tempfile
    before = set(os.listdir(tempfile.gettempdir()))
    result = _run("01_variables.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert list(tmp_path.iterdir()) == []
    left = {name for name in set(os.listdir(tempfile.gettempdir())) - before if name.startswith("tf1-tutorial-")}
    assert not left


def test_readme_images_are_current(tmp_path):
    """The committed pictures are exactly what tutorials/make_images.py draws today."""
    result = _run("make_images.py", "--dir", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    for name in ("tf2_guide.svg", "variables.svg"):
        committed = open(os.path.join(TUTORIALS, "images", name), encoding="utf-8").read()
        assert (tmp_path / name).read_text(encoding="utf-8") == committed, \
            f"tutorials/images/{name} is stale: run python tutorials/make_images.py"
