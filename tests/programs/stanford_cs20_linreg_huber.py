# Linear regression of life expectancy on birth rate, per-example SGD on a Huber loss built with tf.cond.
# After: chiphuyen/stanford-tensorflow-tutorials, examples/03_linreg_placeholder.py with utils.huber_loss
# (MIT license, Chip Huyen, CS20 "TensorFlow for Deep Learning Research"): same placeholders X and Y,
# w and b from tf.get_variable(initializer=tf.constant(0.0)), Y_predicted = w * X + b, the Huber loss
# (tf.abs residual, tf.cond between 0.5 * square and delta * residual - 0.5 * delta^2, delta 14.0),
# GradientDescentOptimizer(0.001), "Epoch i: mean loss" lines. Rewritten for this project rather than
# copied. Edits: the import line; the data file birth_life_2010.txt -> 40 synthetic (birth rate, life
# expectancy) pairs made here with a fixed numpy seed; 100 epochs -> 20; the summary FileWriter, the
# timing line and the matplotlib plot dropped (tf.summary is not emulated yet; times differ by nature).
import numpy as np
import tensorflow.compat.v1 as tf

rng = np.random.RandomState(2010)
birth_rate = rng.uniform(1.0, 7.0, 40)
life_expectancy = 85.0 - 5.5 * birth_rate + rng.normal(0.0, 4.0, 40)
life_expectancy[::9] -= 25.0  # a few outliers: where the Huber loss beats the squared error
data = np.stack([birth_rate, life_expectancy], axis=1).astype(np.float32)
n_samples = len(data)


def huber_loss(labels, predictions, delta=14.0):
    residual = tf.abs(labels - predictions)

    def f1():
        return 0.5 * tf.square(residual)

    def f2():
        return delta * residual - 0.5 * tf.square(delta)

    return tf.cond(residual < delta, f1, f2)


X = tf.placeholder(tf.float32, name='X')
Y = tf.placeholder(tf.float32, name='Y')

w = tf.get_variable('weights', initializer=tf.constant(0.0))
b = tf.get_variable('bias', initializer=tf.constant(0.0))

Y_predicted = w * X + b
loss = huber_loss(Y, Y_predicted)
optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.001).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(20):
        total_loss = 0
        for x, y in data:
            _, l = sess.run([optimizer, loss], feed_dict={X: x, Y: y})
            total_loss += l
        print('Epoch {0}: {1}'.format(i, total_loss / n_samples))
    w_out, b_out = sess.run([w, b])
print('w = %f, b = %f' % (w_out, b_out))
