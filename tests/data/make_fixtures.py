"""Regenerate the committed TF-written test fixtures under tests/data/ (needs real TensorFlow).

Run from anywhere: ``python tests/data/make_fixtures.py``.  Every file is written below the directory
of this script, nowhere else; old fixture directories are replaced.  Values are deterministic (fixed
seeds); timestamps inside `checkpoint` state files and the order of nothing else are not.

Fixtures (each directory holds TF's files plus ``expected.json`` written from TF's own reader):

* ``tf2_guide/``        the TF2 "Training checkpoints" guide: Keras ``Net`` (Dense(5)), Adam(0.1),
                        ``Checkpoint(step, optimizer, net, iterator)``, ``CheckpointManager(max_to_keep=3)``,
                        50 steps saving every 10 -> ckpt-3, ckpt-4, ckpt-5 and the state file.
* ``tf2_guide_noiter/`` the same model without ``iterator=`` (19 object-graph nodes), max_to_keep=1.
* ``v1_adam/``          ``Checkpoint(model=tf.Module, opt=tf.compat.v1.train.AdamOptimizer)``: slot
                        variables (``.OPTIMIZER_SLOT`` keys) and non-slot ``beta1_power``/``beta2_power``.
* ``odd_names/``        objects whose local names need escaping (``a/b``, ``c.d``, ``e.S``, ...), a list,
                        a variable reachable by two paths, non-ASCII.
* ``state/``            ``checkpoint`` state files written by ``update_checkpoint_state(_internal)`` in the
                        situations listed in ``state/cases.json`` (golden text for tests/saver/test_state.py).

``expected.json`` layout: ``{"prefix": str, "variables": {key: {"dtype", "shape", "value"?}},
"object_graph_b64": base64 of the serialized TrackableObjectGraph, "nodes": [{"children": [[id, name]],
"attributes": [[name, full_name, checkpoint_key]], "slot_variables": [[orig, slot_name, slot_id]],
"registered_saver": [name, object_name] | null, "has_checkpoint_values": bool | null}]}``.
"""

import base64
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCRATCH = os.path.join(HERE, "_scratch")  # removed at the end: nothing is written outside tests/data/


def _setup_tf():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
    import tensorflow as tf
    tf.get_logger().setLevel("ERROR")
    tf.keras.utils.set_random_seed(1234)
    return tf


def _fresh_dir(name):
    path = os.path.join(HERE, name)
    assert os.path.dirname(path) == HERE
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path


def _expected(tf, prefix, fixture_dir):
    """Describe the checkpoint at `prefix` using TF's own reader and proto classes."""
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    variables = {}
    for key in sorted(shapes):
        entry = {"dtype": dtypes[key].name, "shape": list(shapes[key])}
        if dtypes[key] == tf.string:
            value = reader.get_tensor(key)
            entry["value_b64"] = base64.b64encode(value if isinstance(value, bytes) else value.tobytes()).decode()
        elif dtypes[key] != tf.variant:
            entry["value"] = reader.get_tensor(key).tolist()
        variables[key] = entry
    graph_bytes = reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(graph_bytes)
    nodes = []
    for node in graph.nodes:
        nodes.append({
            "children": [[c.node_id, c.local_name] for c in node.children],
            "attributes": [[a.name, a.full_name, a.checkpoint_key] for a in node.attributes],
            "slot_variables": [[s.original_variable_node_id, s.slot_name, s.slot_variable_node_id]
                               for s in node.slot_variables],
            "registered_saver": ([node.registered_saver.name, node.registered_saver.object_name]
                                 if node.HasField("registered_saver") else None),
            "has_checkpoint_values": (node.has_checkpoint_values.value
                                      if node.HasField("has_checkpoint_values") else None),
        })
    return {
        "prefix": os.path.relpath(prefix, fixture_dir),
        "tensorflow_version": tf.__version__,
        "variables": variables,
        "object_graph_b64": base64.b64encode(graph_bytes).decode(),
        "nodes": nodes,
    }


def _dump(obj, path):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")


def make_tf2_guide(tf, name, with_iterator, max_to_keep):
    """The TF2 'Training checkpoints' guide (https://www.tensorflow.org/guide/checkpoint)."""
    out = _fresh_dir(name)
    tf.keras.utils.set_random_seed(1234)

    class Net(tf.keras.Model):
        """A simple linear model."""

        def __init__(self):
            super().__init__()
            self.l1 = tf.keras.layers.Dense(5)

        def call(self, x):
            return self.l1(x)

    def toy_dataset():
        inputs = tf.range(10.)[:, None]
        labels = inputs * 5. + tf.range(5.)[None, :]
        return tf.data.Dataset.from_tensor_slices(dict(x=inputs, y=labels)).repeat().batch(2)

    def train_step(net, example, optimizer):
        with tf.GradientTape() as tape:
            output = net(example["x"])
            loss = tf.reduce_mean(tf.abs(output - example["y"]))
        variables = net.trainable_variables
        gradients = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(gradients, variables))
        return loss

    net = Net()
    opt = tf.keras.optimizers.Adam(0.1)
    dataset = toy_dataset()
    iterator = iter(dataset)
    kwargs = dict(step=tf.Variable(1), optimizer=opt, net=net)
    if with_iterator:
        kwargs["iterator"] = iterator
    ckpt = tf.train.Checkpoint(**kwargs)
    cwd = os.getcwd()
    os.chdir(out)  # the guide uses a relative directory: './tf_ckpts' -> here '.'
    try:
        manager = tf.train.CheckpointManager(ckpt, ".", max_to_keep=max_to_keep)
        ckpt.restore(manager.latest_checkpoint)
        for _ in range(50):
            example = next(iterator)
            train_step(net, example, opt)
            ckpt.step.assign_add(1)
            if int(ckpt.step) % 10 == 0:
                manager.save()
        latest = os.path.join(out, os.path.basename(manager.latest_checkpoint))
    finally:
        os.chdir(cwd)
    expected = _expected(tf, latest, out)
    expected["checkpoints"] = sorted(f for f in os.listdir(out) if f != "expected.json")
    _dump(expected, os.path.join(out, "expected.json"))


def make_v1_adam(tf):
    """compat.v1 AdamOptimizer in eager mode: slot variables `m`/`v` tracked per variable."""
    out = _fresh_dir("v1_adam")
    tf.keras.utils.set_random_seed(1234)

    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([1.0, 2.0], name="w")
            self.b = tf.Variable([[0.5], [-0.5]], name="scope/b")

    model = Model()
    opt = tf.compat.v1.train.AdamOptimizer(0.1)
    for _ in range(3):
        opt.minimize(lambda: tf.reduce_sum(model.v * model.v) + tf.reduce_sum(model.b), var_list=[model.v, model.b])
    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    prefix = ckpt.save(os.path.join(out, "ckpt"))
    _dump(_expected(tf, prefix, out), os.path.join(out, "expected.json"))


def make_odd_names(tf):
    """Local names that need escaping, a list, one variable reachable by two paths, non-ASCII."""
    out = _fresh_dir("odd_names")
    shared = tf.Variable(7, dtype=tf.int64, name="shared")
    model = tf.Module()
    model.d = {
        "a/b": tf.Variable(1.0, name="ab"),
        "c.d": tf.Variable(2.0, name="cd"),
        "e.S": tf.Variable(3.0, name="eS"),
        "x..y/.z": tf.Variable([4.0, 5.0], name="xy"),
        "ünï cödé": tf.Variable(b"bytes\x00\xff", name="uni"),
        "again": shared,
    }
    model.lst = [tf.Variable(10, name="l0"), tf.Variable([[1, 2], [3, 4]], dtype=tf.int16, name="l1")]
    model.first = shared
    ckpt = tf.train.Checkpoint(model=model)
    prefix = ckpt.write(os.path.join(out, "ckpt"))
    _dump(_expected(tf, prefix, out), os.path.join(out, "expected.json"))


STATE_CASES = [
    # name, save_dir, model_checkpoint_path, all paths, internal(save_relative_paths)?, timestamps, last_preserved
    ("abs", "/tmp/train", "/tmp/train/model.ckpt-3", ["/tmp/train/model.ckpt-1", "/tmp/train/model.ckpt-2"],
     None, None, None),
    ("rel_dir", "rel", "rel/m-8", ["rel/m-6", "rel/m-7", "rel/m-8"], None, None, None),
    ("rel_dir_abs_paths", "rel", "/abs/m-8", ["rel/m-7", "/abs/m-8"], None, None, None),
    ("abs_relative_paths", "/tmp/train", "/tmp/train/ckpt-5", ["/tmp/train/ckpt-3", "/tmp/train/ckpt-4",
                                                               "/tmp/train/ckpt-5"], True, None, None),
    ("timestamps", "/tmp/train", "/tmp/train/ckpt-5", ["/tmp/train/ckpt-4", "/tmp/train/ckpt-5"], True,
     [1795334830.1994243, 1795334831.5], 1795334828.8838868),
    ("odd_chars", "/tmp/t", "/tmp/t/m\"q'\\\t\n\x01\x7f é😀-1", [], None, [2.0], 1e+20),
    ("special_floats", "/tmp/t", "/tmp/t/m-1", ["/tmp/t/m-0"], None, [float("inf"), -0.0], float("nan")),
    ("dotdot", "a/b", "c/m-1", ["a/b/m-0", "a/b/../b/m-1"], False, None, 1e-7),
]


def make_state(tf):
    """Golden `checkpoint` files from TF's update_checkpoint_state, run in a scratch cwd."""
    from tensorflow.python.checkpoint import checkpoint_management
    out = _fresh_dir("state")
    cases = []
    cwd = os.getcwd()
    scratch = os.path.join(SCRATCH, "state")
    os.makedirs(scratch)
    try:
        for name, save_dir, path, paths, internal, stamps, last in STATE_CASES:
            os.chdir(scratch)
            target = os.path.join(scratch, "d_" + name)
            os.makedirs(target)
            # Write into the scratch dir under a fixed latest_filename, then copy the text out.
            latest = os.path.relpath(os.path.join(target, "checkpoint"), save_dir) if not os.path.isabs(save_dir) \
                else os.path.join(target, "checkpoint")
            if not os.path.isabs(save_dir):
                os.makedirs(save_dir, exist_ok=True)
            kwargs = dict(all_model_checkpoint_paths=list(paths), latest_filename=latest,
                          all_model_checkpoint_timestamps=stamps, last_preserved_timestamp=last)
            if internal is None:
                checkpoint_management.update_checkpoint_state(save_dir, path, **kwargs)
            else:
                checkpoint_management.update_checkpoint_state_internal(
                    save_dir, path, save_relative_paths=internal, **kwargs)
            with open(os.path.join(target, "checkpoint"), "rb") as f:
                data = f.read()
            with open(os.path.join(out, name + ".txt"), "wb") as f:
                f.write(data)
            cases.append({"name": name, "save_dir": save_dir, "model_checkpoint_path": path,
                          "all_model_checkpoint_paths": paths, "save_relative_paths": internal,
                          "all_model_checkpoint_timestamps": [repr(s) for s in stamps] if stamps else stamps,
                          "last_preserved_timestamp": repr(last) if last is not None else None})
    finally:
        os.chdir(cwd)
        shutil.rmtree(scratch)
    _dump(cases, os.path.join(out, "cases.json"))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        tf = _setup_tf()
        which = sys.argv[2]
        if which == "tf2_guide":
            make_tf2_guide(tf, "tf2_guide", with_iterator=True, max_to_keep=3)
        elif which == "tf2_guide_noiter":
            make_tf2_guide(tf, "tf2_guide_noiter", with_iterator=False, max_to_keep=1)
        elif which == "v1_adam":
            make_v1_adam(tf)
        elif which == "odd_names":
            make_odd_names(tf)
        elif which == "state":
            make_state(tf)
        else:
            raise SystemExit("unknown fixture %r" % which)
        return
    # One fresh process per fixture: Keras/TF global name counters then start from zero every time.
    names = sys.argv[1:] or ["tf2_guide", "tf2_guide_noiter", "v1_adam", "odd_names", "state"]
    env = dict(os.environ, KERAS_HOME=os.path.join(SCRATCH, "keras"))  # Keras writes keras.json there
    try:
        for name in names:
            print("writing", name, flush=True)
            shutil.rmtree(SCRATCH, ignore_errors=True)
            os.makedirs(SCRATCH)
            subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name], check=True, env=env)
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
    total = sum(os.path.getsize(os.path.join(root, f)) for root, _, files in os.walk(HERE) for f in files)
    print("tests/data total: %d bytes" % total)


if __name__ == "__main__":
    main()
