"""SummarySaverHook and StepCounterHook write the events TensorFlow writes: the same tags, steps and values."""

import glob
import os

import pytest

import graph.compat.v1 as ours
from saver.loops.basic_hooks import increment_global_step


def _increment(tf):
    """TF's private _increment_global_step: the increment runs after the hooks' cached global-step read."""
    if tf is ours:
        return increment_global_step(1)
    from tensorflow.python.training import training_util
    return training_util._increment_global_step(1)


def _train_and_read_events(tf, directory, runs=10):
    """Trains with both hooks writing into `directory`; returns its events as comparable tuples."""
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        v = tf.Variable(0.0, name="v")
        value = tf.assign_add(v, 1.0)
        summary = tf.summary.merge([tf.summary.scalar("value", value), tf.summary.scalar("twice", value * 2.0)])
        train = _increment(tf)
        hooks = [tf.train.SummarySaverHook(save_steps=3, output_dir=directory, summary_op=summary),
                 tf.train.StepCounterHook(every_n_steps=4, output_dir=directory)]
        with tf.train.SingularMonitoredSession(hooks=hooks) as sess:
            for _ in range(runs):
                sess.run(train)
    tf.summary.FileWriterCache.clear()  # closes the writer: every event is on disk
    files = glob.glob(os.path.join(directory, "events.out.tfevents.*"))
    assert len(files) == 1, files
    events = []
    for event in tf.train.summary_iterator(files[0]):
        if event.HasField("file_version"):
            events.append(("file_version", event.file_version))
        elif event.HasField("session_log"):
            events.append(("session_log", event.step, event.session_log.status))
        elif event.HasField("graph_def"):
            events.append(("graph_def", event.step))
        elif event.HasField("meta_graph_def"):
            events.append(("meta_graph_def", event.step))
        elif event.HasField("summary"):
            for value in event.summary.value:
                # a rate depends on the clock; its tag and step do not
                shown = value.simple_value if value.tag != "global_step/sec" else value.simple_value > 0
                events.append(("summary", event.step, value.tag, shown))
        else:
            events.append(("other", event.step))
    return events


@pytest.mark.tf
def test_summary_and_step_counter_events_like_tensorflow(tf_module, tmp_path):
    expected = _train_and_read_events(tf_module, str(tmp_path / "tf"))
    actual = _train_and_read_events(ours, str(tmp_path / "ours"))
    # FileWriter(graph=...) writes the graph_def event and then the meta_graph_def one, as TF's
    assert ("meta_graph_def", 0) in actual
    assert actual == expected
    steps = sorted({e[1] for e in actual if e[0] == "summary" and e[2] == "value"})
    assert steps == [1, 4, 7, 10]
    assert sorted({e[1] for e in actual if e[0] == "summary" and e[2] == "global_step/sec"}) == [5, 9]
