"""TensorFlow's checkpoint management suite (state file, checkpoint helpers, CheckpointManager), on both backends.

Port of tensorflow/python/training/checkpoint_management_test.py (tensorflow/tensorflow at 0f563557ee43): the
same test methods and expectations, rewritten against ``harness.tf``.  The CheckpointManager tests run their
graph-mode half inside ``cached_session()`` (what TensorFlow's ``run_in_graph_and_eager_modes`` wraps them in);
the clock they mock is the ``time`` module of the module defining CheckpointManager on each backend, and the
warning they watch is that module's logger.  The original is Copyright 2015 The TensorFlow Authors, licensed
under the Apache License, Version 2.0.
"""

import contextlib
import importlib
import os
import shutil
import tempfile
from unittest import mock

from tests.tf_suites.harness import TestCase, private, tf


def _manager_module():
    return importlib.import_module("tensorflow.python.checkpoint.checkpoint_management" if tf.name == "tf"
                                   else "saver.checkpoint.manager")


def _warning_owner():
    # TensorFlow's module logs through tf_logging; ours through its module logger.
    module = _manager_module()
    return module.logging if tf.name == "tf" else module.logger


def _update_checkpoint_state_internal(**kwargs):
    return private("tensorflow.python.checkpoint.checkpoint_management:update_checkpoint_state_internal",
                   "saver.storage.state:update_checkpoint_state_internal")(**kwargs)


def _parse_checkpoint_state(text):
    if tf.name == "tf":
        from google.protobuf import text_format
        from tensorflow.python.training.checkpoint_state_pb2 import CheckpointState
        state = CheckpointState()
        text_format.Merge(text, state)
        return state
    return private("", "saver.storage.state:_parse")(text)


@contextlib.contextmanager
def _working_dir(path):
    cwd = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(cwd)


@contextlib.contextmanager
def _temp_dir():
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


class LatestCheckpointWithRelativePaths(TestCase):

    def testNameCollision(self):
        with _temp_dir() as tempdir, _working_dir(tempdir):
            traindir = "train"
            os.mkdir(traindir)
            filepath = os.path.join(traindir, "checkpoint")  # the state file's default name
            with self.cached_session() as sess:
                tf.Variable(0.0)  # something to save
                self.evaluate(tf.global_variables_initializer())
                saver = tf.train.Saver(sharded=False)
                with self.assertRaisesRegex(ValueError, "collides with"):
                    saver.save(sess, filepath)
                saver.save(sess, filepath, global_step=1)
                self.assertIsNotNone(tf.train.latest_checkpoint(traindir))
                saver = tf.train.Saver(sharded=True)
                saver.save(sess, filepath)
                self.assertIsNotNone(tf.train.latest_checkpoint(traindir))
                saver = tf.train.Saver(sharded=True)
                saver.save(sess, filepath, global_step=1)
                self.assertIsNotNone(tf.train.latest_checkpoint(traindir))

    def testRelativePath(self):
        with _temp_dir() as tempdir, _working_dir(tempdir):
            traindir = "train"
            os.mkdir(traindir)
            filepath = os.path.join(traindir, "snapshot")
            with self.cached_session() as sess:
                v0 = tf.Variable(0.0)
                inc = v0.assign_add(1.0)
                save = tf.train.Saver({"v0": v0})
                self.evaluate(tf.global_variables_initializer())
                save.save(sess, filepath, global_step=0)
                self.evaluate(inc)
                save.save(sess, filepath, global_step=1)
                self.evaluate(inc)
                save.save(sess, filepath, global_step=2)
            with self.cached_session() as sess:
                v0 = tf.Variable(-1.0)
                save = tf.train.Saver({"v0": v0})
                self.evaluate(tf.global_variables_initializer())
                name = tf.train.latest_checkpoint(traindir)
                self.assertIsNotNone(name)
                save.restore(sess, name)
                self.assertEqual(v0.eval(), 2.0)


class CheckpointStateTest(TestCase):

    def _get_test_dir(self, dirname):
        test_dir = os.path.join(self.get_temp_dir(), dirname)
        tf.gfile.MakeDirs(test_dir)
        return test_dir

    def testAbsPath(self):
        save_dir = self._get_test_dir("abs_paths")
        abs_path = os.path.join(save_dir, "model-0")
        ckpt = tf.train.generate_checkpoint_state_proto(save_dir, abs_path)
        self.assertEqual(ckpt.model_checkpoint_path, abs_path)
        self.assertTrue(os.path.isabs(ckpt.model_checkpoint_path))
        self.assertEqual(len(ckpt.all_model_checkpoint_paths), 1)
        self.assertEqual(ckpt.all_model_checkpoint_paths[-1], abs_path)

    def testRelPath(self):
        train_dir = "train"
        model = os.path.join(train_dir, "model-0")
        new_rel_path = "model-0"  # without the "train" directory part
        ckpt = tf.train.generate_checkpoint_state_proto(train_dir, model)
        self.assertEqual(ckpt.model_checkpoint_path, new_rel_path)
        self.assertEqual(len(ckpt.all_model_checkpoint_paths), 1)
        self.assertEqual(ckpt.all_model_checkpoint_paths[-1], new_rel_path)

    def testAllModelCheckpointPaths(self):
        save_dir = self._get_test_dir("all_models_test")
        abs_path = os.path.join(save_dir, "model-0")
        for paths in [None, [], ["model-2"]]:
            ckpt = tf.train.generate_checkpoint_state_proto(save_dir, abs_path, all_model_checkpoint_paths=paths)
            self.assertEqual(ckpt.model_checkpoint_path, abs_path)
            self.assertTrue(os.path.isabs(ckpt.model_checkpoint_path))
            self.assertEqual(len(ckpt.all_model_checkpoint_paths), len(paths) if paths else 1)
            self.assertEqual(ckpt.all_model_checkpoint_paths[-1], abs_path)

    def testUpdateCheckpointState(self):
        save_dir = self._get_test_dir("update_checkpoint_state")
        with _working_dir(save_dir):  # TensorFlow chdirs without restoring; restored here
            train_dir = "train"
            os.mkdir(train_dir)
            abs_path = os.path.join(save_dir, "model-0")
            rel_path = os.path.join("train", "model-2")
            tf.train.update_checkpoint_state(train_dir, rel_path, all_model_checkpoint_paths=[abs_path, rel_path])
            ckpt = tf.train.get_checkpoint_state(train_dir)
            self.assertEqual(ckpt.model_checkpoint_path, rel_path)
            self.assertEqual(len(ckpt.all_model_checkpoint_paths), 2)
            self.assertEqual(ckpt.all_model_checkpoint_paths[-1], rel_path)
            self.assertEqual(ckpt.all_model_checkpoint_paths[0], abs_path)

    def testUpdateCheckpointStateSaveRelativePaths(self):
        save_dir = self._get_test_dir("update_checkpoint_state")
        with _working_dir(save_dir):
            abs_path2 = os.path.join(save_dir, "model-2")
            rel_path2 = "model-2"
            abs_path0 = os.path.join(save_dir, "model-0")
            rel_path0 = "model-0"
            _update_checkpoint_state_internal(save_dir=save_dir, model_checkpoint_path=abs_path2,
                                              all_model_checkpoint_paths=[rel_path0, abs_path2],
                                              save_relative_paths=True)
            with open(os.path.join(save_dir, "checkpoint")) as handle:  # TF: file_io.read_file_to_string
                ckpt = _parse_checkpoint_state(handle.read())
            self.assertEqual(ckpt.model_checkpoint_path, rel_path2)
            self.assertEqual(len(ckpt.all_model_checkpoint_paths), 2)
            self.assertEqual(ckpt.all_model_checkpoint_paths[-1], rel_path2)
            self.assertEqual(ckpt.all_model_checkpoint_paths[0], rel_path0)
            ckpt = tf.train.get_checkpoint_state(save_dir)  # absolute paths again
            self.assertEqual(ckpt.model_checkpoint_path, abs_path2)
            self.assertEqual(len(ckpt.all_model_checkpoint_paths), 2)
            self.assertEqual(ckpt.all_model_checkpoint_paths[-1], abs_path2)
            self.assertEqual(ckpt.all_model_checkpoint_paths[0], abs_path0)

    def testCheckPointStateFailsWhenIncomplete(self):
        save_dir = self._get_test_dir("checkpoint_state_fails_when_incomplete")
        with open(os.path.join(save_dir, "checkpoint"), "w") as handle:
            handle.write("")
        with self.assertRaises(ValueError):
            tf.train.get_checkpoint_state(save_dir)

    def testCheckPointCompletesRelativePaths(self):
        save_dir = self._get_test_dir("checkpoint_completes_relative_paths")
        with open(os.path.join(save_dir, "checkpoint"), "w") as handle:
            handle.write("""
                model_checkpoint_path: "./model.ckpt-687529"
                all_model_checkpoint_paths: "./model.ckpt-687500"
                all_model_checkpoint_paths: "./model.ckpt-687529"
                """)
        ckpt = tf.train.get_checkpoint_state(save_dir)
        self.assertEqual(ckpt.model_checkpoint_path, os.path.join(save_dir, "./model.ckpt-687529"))
        self.assertEqual(ckpt.all_model_checkpoint_paths[0], os.path.join(save_dir, "./model.ckpt-687500"))
        self.assertEqual(ckpt.all_model_checkpoint_paths[1], os.path.join(save_dir, "./model.ckpt-687529"))


class SaverUtilsTest(TestCase):

    def setUp(self):
        self._base_dir = os.path.join(self.get_temp_dir(), "saver_utils_test")
        tf.gfile.MakeDirs(self._base_dir)

    def _versions(self):
        return (tf.train.SaverDef.V2, tf.train.SaverDef.V1)

    def testCheckpointExists(self):
        for sharded in (False, True):
            for version in self._versions():
                with self.session(graph=tf.Graph()) as sess:
                    tf.Variable(1.0, name="v")
                    self.evaluate(tf.global_variables_initializer())
                    saver = tf.train.Saver(sharded=sharded, write_version=version)
                    path = os.path.join(self._base_dir, "%s-%s" % (sharded, version))
                    self.assertFalse(tf.train.checkpoint_exists(path))  # nothing saved yet
                    ckpt_prefix = saver.save(sess, path)
                    self.assertTrue(tf.train.checkpoint_exists(ckpt_prefix))
                    ckpt_prefix = tf.train.latest_checkpoint(self._base_dir)
                    self.assertTrue(tf.train.checkpoint_exists(ckpt_prefix))

    def testGetCheckpointMtimes(self):
        prefixes = []
        for version in self._versions():
            with self.session(graph=tf.Graph()) as sess:
                tf.Variable(1.0, name="v")
                self.evaluate(tf.global_variables_initializer())
                saver = tf.train.Saver(write_version=version)
                prefixes.append(saver.save(sess, os.path.join(self._base_dir, str(version))))
        mtimes = tf.train.get_checkpoint_mtimes(prefixes)
        self.assertEqual(2, len(mtimes))
        self.assertTrue(mtimes[1] >= mtimes[0])

    def testRemoveCheckpoint(self):
        for sharded in (False, True):
            for version in self._versions():
                with self.session(graph=tf.Graph()) as sess:
                    tf.Variable(1.0, name="v")
                    self.evaluate(tf.global_variables_initializer())
                    saver = tf.train.Saver(sharded=sharded, write_version=version)
                    path = os.path.join(self._base_dir, "%s-%s" % (sharded, version))
                    ckpt_prefix = saver.save(sess, path)
                    self.assertTrue(tf.train.checkpoint_exists(ckpt_prefix))
                    tf.train.remove_checkpoint(ckpt_prefix, version)
                    self.assertFalse(tf.train.checkpoint_exists(ckpt_prefix))


class CheckpointManagerTest(TestCase):

    def _exists(self, path):
        return tf.train.checkpoint_exists(path)

    def testDeletion(self):
        with self.cached_session():
            checkpoint = tf.train.Checkpoint()
            manager = tf.train.CheckpointManager(checkpoint, self.get_temp_dir(), max_to_keep=3)
            paths = [manager.save() for _ in range(4)]
            for path in paths[1:]:
                self.assertTrue(self._exists(path))
            self.assertFalse(self._exists(paths[0]))

    def testKeepAll(self):
        with self.cached_session():
            checkpoint = tf.train.Checkpoint()
            directory = os.path.join(self.get_temp_dir(), "False")  # TF: str(executing_eagerly())
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=None)
            first_path = manager.save()
            second_path = manager.save()
            third_path = manager.save()
            for path in (first_path, second_path, third_path):
                self.assertTrue(self._exists(path))
            self.assertEqual(third_path, manager.latest_checkpoint)
            self.assertEqual([first_path, second_path, third_path], manager.checkpoints)
            del manager
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=None)
            fourth_path = manager.save()
            self.assertEqual([first_path, second_path, third_path, fourth_path], manager.checkpoints)
            del manager
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=3)
            self.assertEqual([first_path, second_path, third_path, fourth_path], manager.checkpoints)
            for path in (first_path, second_path, third_path, fourth_path):
                self.assertTrue(self._exists(path))
            fifth_path = manager.save()
            self.assertEqual([third_path, fourth_path, fifth_path], manager.checkpoints)
            for path in (third_path, fourth_path, fifth_path):
                self.assertTrue(self._exists(path))
            self.assertFalse(self._exists(second_path))
            self.assertFalse(self._exists(first_path))

    def testSaveRestoreState(self):
        with self.cached_session(), mock.patch.object(_manager_module(), "time") as mock_time:
            directory = self.get_temp_dir()
            mock_time.time.return_value = 3.
            checkpoint = tf.train.Checkpoint()
            first_manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
            first_time = 10000.
            first_name = os.path.join(directory, "ckpt-1")
            mock_time.time.return_value = first_time
            first_manager.save()
            state = tf.train.get_checkpoint_state(directory)
            second_time = first_time + 3610.
            second_name = os.path.join(directory, "ckpt-2")
            mock_time.time.return_value = second_time
            first_manager.save()
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual([first_time, second_time], state.all_model_checkpoint_timestamps)
            self.assertEqual([first_name, second_name], first_manager.checkpoints)
            self.assertEqual(second_name, first_manager.latest_checkpoint)
            del first_manager
            second_manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2,
                                                        keep_checkpoint_every_n_hours=1.5)
            self.assertEqual([first_name, second_name], second_manager.checkpoints)
            self.assertEqual(second_name, second_manager.latest_checkpoint)
            third_name = os.path.join(directory, "ckpt-3")
            third_time = second_time + 3600. * 0.2
            mock_time.time.return_value = third_time
            second_manager.save()
            self.assertTrue(self._exists(first_name))
            self.assertTrue(self._exists(second_name))
            self.assertEqual([second_name, third_name], second_manager.checkpoints)
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual(first_time, state.last_preserved_timestamp)
            fourth_time = third_time + 3600. * 0.5
            mock_time.time.return_value = fourth_time
            fourth_name = os.path.join(directory, "ckpt-4")
            second_manager.save()
            self.assertTrue(self._exists(first_name))
            self.assertFalse(self._exists(second_name))
            self.assertEqual([third_name, fourth_name], second_manager.checkpoints)
            fifth_time = fourth_time + 3600. * 0.5
            mock_time.time.return_value = fifth_time
            fifth_name = os.path.join(directory, "ckpt-5")
            second_manager.save()
            self.assertEqual([fourth_name, fifth_name], second_manager.checkpoints)
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual(first_time, state.last_preserved_timestamp)
            del second_manager
            third_manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2,
                                                       keep_checkpoint_every_n_hours=1.5)
            self.assertEqual(fifth_name, third_manager.latest_checkpoint)
            mock_time.time.return_value += 10.
            third_manager.save()
            sixth_name = os.path.join(directory, "ckpt-6")
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual(fourth_time, state.last_preserved_timestamp)
            for name in (first_name, fourth_name, fifth_name, sixth_name):
                self.assertTrue(self._exists(name))
            self.assertFalse(self._exists(second_name))
            self.assertFalse(self._exists(third_name))
            self.assertEqual([fifth_name, sixth_name], third_manager.checkpoints)

    def testContinueFromUnmanaged(self):
        with self.cached_session():
            directory = self.get_temp_dir()
            prefix = os.path.join(directory, "unusual_prefix")
            checkpoint = tf.train.Checkpoint()
            first_path = checkpoint.save(prefix)
            second_path = checkpoint.save(prefix)
            del checkpoint
            checkpoint = tf.train.Checkpoint()
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
            checkpoint.restore(manager.latest_checkpoint).run_restore_ops()
            self.assertEqual(2, self.evaluate(checkpoint.save_counter))
            third_path = manager.save()
            self.assertEqual([third_path], manager.checkpoints)
            fourth_path = manager.save()
            self.assertEqual([third_path, fourth_path], manager.checkpoints)
            fifth_path = manager.save()
            self.assertEqual([fourth_path, fifth_path], manager.checkpoints)
            self.assertTrue(self._exists(first_path))
            self.assertTrue(self._exists(second_path))
            self.assertFalse(self._exists(third_path))
            self.assertTrue(self._exists(fourth_path))
            self.assertTrue(self._exists(fifth_path))

    def testClockReset(self):
        with self.cached_session(), mock.patch.object(_manager_module(), "time") as mock_time:
            directory = self.get_temp_dir()
            mock_time.time.return_value = 10000.
            checkpoint = tf.train.Checkpoint()
            first_manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=1,
                                                       keep_checkpoint_every_n_hours=1.)
            first_path = first_manager.save()
            mock_time.time.return_value += 3600.
            second_path = first_manager.save()
            mock_time.time.return_value += 3600.
            third_path = first_manager.save()
            self.assertFalse(self._exists(first_path))
            self.assertTrue(self._exists(second_path))
            self.assertTrue(self._exists(third_path))
            self.assertEqual([third_path], first_manager.checkpoints)
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual(13600., state.last_preserved_timestamp)
            mock_time.time.return_value = 5000.  # the clock goes back
            del first_manager
            with mock.patch.object(_warning_owner(), "warning") as mock_log:
                second_manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=1)
                self.assertRegex(str(mock_log.call_args), "behind the last preserved checkpoint timestamp")
            self.assertTrue(self._exists(second_path))  # kept: whether it was preserved is unknown
            self.assertEqual(third_path, second_manager.latest_checkpoint)
            self.assertEqual([], second_manager.checkpoints)
            mock_time.time.return_value += 10.
            fourth_path = second_manager.save()
            self.assertTrue(self._exists(second_path))
            self.assertTrue(self._exists(third_path))
            self.assertEqual(fourth_path, second_manager.latest_checkpoint)
            self.assertEqual([fourth_path], second_manager.checkpoints)
            mock_time.time.return_value += 10.
            fifth_path = second_manager.save()
            self.assertTrue(self._exists(second_path))
            self.assertTrue(self._exists(third_path))
            self.assertEqual([fifth_path], second_manager.checkpoints)
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual(5000., state.last_preserved_timestamp)
            self.assertEqual([5020.], state.all_model_checkpoint_timestamps)

    def testCustomNumbering(self):
        with self.cached_session():
            directory = self.get_temp_dir()
            step = tf.Variable(0, dtype=tf.int64)
            checkpoint = tf.train.Checkpoint(step=step)
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
            self.evaluate(step.initializer)
            for i in range(5):
                path = manager.save(checkpoint_number=step)
                expected_suffix = "-%d" % (2 * i,)
                if not path.endswith(expected_suffix):
                    self.fail("%s should have suffix %s" % (path, expected_suffix))
                self.evaluate(step.assign_add(2))
            self.assertEqual(5, self.evaluate(checkpoint.save_counter))
            last_path = manager.save(checkpoint_number=32)
            self.assertIn("-32", last_path)
            self.assertEqual(last_path, manager.latest_checkpoint)
            self.assertEqual(last_path, tf.train.latest_checkpoint(directory))
            state = tf.train.get_checkpoint_state(directory)
            self.assertEqual([path, last_path], state.all_model_checkpoint_paths)

    def testCustomCheckpointPrefix(self):
        with self.cached_session():
            directory = self.get_temp_dir()
            checkpoint = tf.train.Checkpoint()
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2, checkpoint_name="ckpt_name")
            path = manager.save(checkpoint_number=5)
            self.assertEqual(os.path.basename(path), "ckpt_name-5")
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
            path = manager.save(checkpoint_number=5)
            self.assertEqual(os.path.basename(path), "ckpt-5")

    def testRestoreOrInitialize(self):
        with self.cached_session():
            directory = self.get_temp_dir()
            init_prefix = os.path.join(directory, "init")
            init_v = tf.Variable(2.0)
            init_ckpt = tf.train.Checkpoint(v=init_v)
            self.evaluate(init_v.initializer)
            init_path = init_ckpt.save(init_prefix)
            ckpt_dir = os.path.join(directory, "ckpt")
            v = tf.Variable(1.0)
            checkpoint = tf.train.Checkpoint(v=v)
            manager = tf.train.CheckpointManager(checkpoint, ckpt_dir, max_to_keep=None,
                                                 init_fn=lambda: checkpoint.restore(init_path).run_restore_ops())
            self.evaluate(v.initializer)
            self.assertIsNone(manager.restore_or_initialize())  # the first call runs init_fn
            self.assertEqual(2.0, self.evaluate(v))
            manager.save()
            self.assertIsNotNone(manager.restore_or_initialize())

    def testCheckpointInterval(self):
        with self.cached_session():
            v = tf.Variable(1.0)
            step_counter = tf.Variable(0)
            self.evaluate([v.initializer, step_counter.initializer])
            checkpoint = tf.train.Checkpoint(v=v)
            manager = tf.train.CheckpointManager(checkpoint, self.get_temp_dir(), max_to_keep=None,
                                                 step_counter=step_counter, checkpoint_interval=2)
            path = manager.save(check_interval=True)  # step 0: the first checkpoint
            self.assertTrue(self._exists(path))
            self.evaluate(step_counter.assign_add(1))
            self.assertIsNone(manager.save(check_interval=True))  # step 1: too soon
            self.evaluate(step_counter.assign_add(1))
            path = manager.save(check_interval=True)  # step 2
            self.assertTrue(self._exists(path))
            self.assertIsNone(manager.save(check_interval=True))  # the same step again
            self.evaluate(step_counter.assign_add(1))
            self.assertIsNone(manager.save(check_interval=True))  # step 3
            path = manager.save(check_interval=False)  # always saves
            self.assertTrue(self._exists(path))

    def testCheckpointIntervalWithRestore(self):
        with self.cached_session():
            directory = self.get_temp_dir()
            v = tf.Variable(1.0)
            step_counter = tf.Variable(0)
            self.evaluate([v.initializer, step_counter.initializer])
            checkpoint = tf.train.Checkpoint(v=v)
            checkpoint.save(os.path.join(directory, "ckpt"))
            manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=None,
                                                 step_counter=step_counter, checkpoint_interval=2)
            self.assertIsNotNone(manager.restore_or_initialize())
            self.assertIsNone(manager.save())  # restored at this very step: nothing to save
