"""tutorials/08_cnn_summaries.py: TensorBoard reads its event file, and real TensorFlow prints the same story."""

import os
import subprocess
import sys

import pytest

from tests.test_tutorials import ROOT, TUTORIALS, _run

SCRIPT = "08_cnn_summaries.py"

# The tutorial run by real TensorFlow: `graph.compat.v1` (its only import of us) is TF's compat.v1.
TF_RUNNER = (
    "import os, runpy, sys, warnings; warnings.simplefilter('ignore');"
    "import tensorflow.compat.v1 as tf1; tf1.disable_v2_behavior(); tf1.logging.set_verbosity(tf1.logging.ERROR);"
    "import graph.compat; sys.modules['graph.compat.v1'] = graph.compat.v1 = tf1;"
    "sys.argv = sys.argv[1:]; sys.path.insert(0, os.path.dirname(sys.argv[0]));"
    "runpy.run_path(sys.argv[0], run_name='__main__')")


@pytest.fixture(scope="module")
def tutorial_run(tmp_path_factory):
    """The tutorial's output directory and stdout (run once for the tests below)."""
    out = tmp_path_factory.mktemp("cnn") / "out"
    result = _run(SCRIPT, "--dir", str(out), cwd=tmp_path_factory.mktemp("cwd"))
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result.stdout


def test_tensorboard_reads_scalars_histograms_images_and_graph(tutorial_run):
    from tensorboard.backend.event_processing import event_accumulator
    out, _ = tutorial_run
    accumulator = event_accumulator.EventAccumulator(str(out / "logs"), size_guidance={
        event_accumulator.HISTOGRAMS: 0, event_accumulator.IMAGES: 0, event_accumulator.SCALARS: 0})
    accumulator.Reload()
    tags = accumulator.Tags()
    assert sorted(tags["scalars"]) == ["accuracy", "loss"]
    assert tags["histograms"] == ["conv1_kernel"] and sorted(tags["images"]) == ["inputs/image/0", "inputs/image/1"]
    steps = [10, 20, 30, 40, 50, 60]
    assert [event.step for event in accumulator.Scalars("loss")] == steps
    assert all(0.0 <= event.value <= 1.0 for event in accumulator.Scalars("accuracy"))
    kernel = accumulator.Histograms("conv1_kernel")[-1].histogram_value
    assert kernel.num == 3 * 3 * 1 * 8 and kernel.min < 0 < kernel.max
    image = accumulator.Images("inputs/image/0")[0]
    assert (image.width, image.height) == (12, 12)
    nodes = {node.name: node.op for node in accumulator.Graph().node}
    assert nodes["conv2d/Conv2D"] == "Conv2D" and nodes["max_pooling2d/MaxPool"] == "MaxPool"
    assert nodes["batch_normalization/cond/FusedBatchNormV3"] == "FusedBatchNormV3"  # training is a tensor
    assert nodes["batch_normalization/AssignMovingAvg"] == "AssignSub"
    assert nodes["dense/MatMul"] == "MatMul" and nodes["dropout/cond/Merge"] == "Merge"


@pytest.mark.tf
@pytest.mark.slow
def test_tensorflow_prints_the_same(tutorial_run, tmp_path):
    _, ours = tutorial_run
    result = subprocess.run([sys.executable, "-c", TF_RUNNER, os.path.join(TUTORIALS, SCRIPT), "--dir",
                             str(tmp_path)], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                            env={**os.environ, "PYTHONPATH": ROOT, "TF_USE_LEGACY_KERAS": "1",
                                 "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout == ours  # names, losses to 4 decimals, accuracy, event records, restore
