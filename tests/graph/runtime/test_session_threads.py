"""Session.run from several threads at once (graph/runtime/session.py)."""

import threading

import numpy as np

import graph.compat.v1 as ours


def test_runs_from_many_threads_share_plans_and_keep_their_own_values():
    with ours.Graph().as_default():
        x = ours.placeholder(ours.float32, [3])
        y = ours.reduce_sum(x * 2.0)
        with ours.Session() as sess:
            failures = []

            def worker(seed):
                rng = np.random.RandomState(seed)
                for _ in range(200):
                    value = rng.rand(3).astype(np.float32)
                    if not np.isclose(sess.run(y, {x: value}), (value * 2).sum()):
                        failures.append(seed)
            threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            assert failures == []
            assert len(sess._plans) == 1  # built once for all threads


def test_a_blocked_dequeue_does_not_stop_other_runs():
    with ours.Graph().as_default():
        q = ours.FIFOQueue(1, ours.int32, shapes=[[]])
        dequeue = q.dequeue()
        enqueue = q.enqueue(42)
        total = ours.constant(1) + 1
        with ours.Session() as sess:
            result = []
            consumer = threading.Thread(target=lambda: result.append(sess.run(dequeue)))
            consumer.start()
            assert sess.run(total) == 2  # other runs proceed while the consumer waits
            sess.run(enqueue)
            consumer.join(5)
            assert result == [42]
