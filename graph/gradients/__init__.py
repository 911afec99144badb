"""The gradients layer: the gradient registry, tf.gradients and one module of gradient functions per op family.

Nothing is imported here eagerly: ``graph.gradients.registry`` is the API the gradient modules use,
``graph.gradients.gradients_impl`` builds gradient graphs (and imports every gradient module).
"""
