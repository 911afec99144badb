"""Tutorial 2: why a variable is uninitialized, and how to read the graph's picture.

Two classic mistakes: running nothing before reading a variable, and creating the initializer
before the variable it should cover.  Then the graph is drawn: variables, their initializers,
``initialized_value`` dependencies and devices.  Run: ``python tutorials/02_uninitialized.py [--dir DIR]``.
"""

import os

from _common import section, workdir

import graph.compat.v1 as tf
from graph.viz import picture
from graph.viz.figure import graphviz_available

with workdir(__doc__.splitlines()[0]) as directory:
    # weights live on a parameter server, biases on a worker: a local Session has neither job (TF refuses to
    # run their ops there), so the sessions below connect to a cluster of one ps and one worker task, whose
    # servers run in this process (a Session on a cluster shares its variables with the cluster's other sessions)
    cluster = tf.train.ClusterSpec({"ps": ["localhost:2222"], "worker": ["localhost:2223"]})
    tf.train.Server(cluster, job_name="ps", task_index=0)
    worker = tf.train.Server(cluster, job_name="worker", task_index=0)
    section("Mistake 1: reading a variable before any initializer ran")
    with tf.device("/job:ps/task:0"):
        weights = tf.Variable(tf.random_normal([3, 2], stddev=0.35), name="weights")
    with tf.Session(worker.target) as sess:
        try:
            sess.run(weights)
        except tf.errors.FailedPreconditionError as error:
            print(type(error).__name__ + ":", error.message)

    section("Mistake 2: the initializer was created before the variable")
    init = tf.global_variables_initializer()  # knows only the variables that exist now: `weights`
    with tf.device("/job:worker/task:0"):
        biases = tf.Variable(tf.zeros([2]), name="biases")
    with tf.Session(worker.target) as sess:
        sess.run(init)
        print("still uninitialized:", [name.decode() for name in sess.run(tf.report_uninitialized_variables())])
        try:
            sess.run(biases)
        except tf.errors.FailedPreconditionError as error:
            print(type(error).__name__ + ":", error.message)

    section("The fix: create the initializer last (or run each variable's own initializer)")
    scaled = tf.Variable(weights.initialized_value() * 2.0, name="scaled")  # reads weights' initial value
    init = tf.global_variables_initializer()
    with tf.Session(worker.target) as sess:
        sess.run(init)
        print("uninitialized now:", list(sess.run(tf.report_uninitialized_variables())))
        print("scaled == 2 * weights:", bool((sess.run(scaled) == 2 * sess.run(weights)).all()))

    section("The picture of the graph")
    svg = picture.write(os.path.join(directory, "variables.svg"))
    dot = picture.write(os.path.join(directory, "variables.dot"))
    print("wrote", svg, "(open it in a browser) and", dot)
    if graphviz_available():
        print("wrote", picture.write(os.path.join(directory, "variables.png")), "(Graphviz is installed)")
    figure = picture.figure()
    print("How to read it:")
    print("  boxes with a double border are variables; fill colour = device:")
    for text, fill, _ in figure.legend[:3]:
        print(f"    {fill}  {text}")
    print("  an orange ellipse is a variable's initializer (its Assign op, and the op computing the value);")
    print("  an orange dashed arrow: that initializer reads another variable through initialized_value():")
    for edge in figure.edges:
        if edge.label == "initialized_value":
            print(f"    {edge.source} -> {edge.target}")
    print("  grey dashed arrows are control dependencies: an init op runs initializers:")
    for name in ("init", init.name):  # the early `init`, and the one created last
        print(f"    {name} waits for", sorted(e.source for e in figure.edges if e.target == name))
    print("  the picture with every op: picture.write('graph.svg', detail='ops')")
    print("\nDone. Next: tutorials/03_transfer.py")
