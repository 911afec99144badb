# "MNIST for ML beginners": softmax regression, zeros init, GradientDescentOptimizer(0.5), 1000 steps of 100.
# After: tensorflow/tensorflow, tensorflow/examples/tutorials/mnist/mnist_softmax.py (Apache 2.0, The
# TensorFlow Authors): same y = tf.matmul(x, W) + b with W, b zeros, cross entropy
# tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y)), InteractiveSession,
# tf.global_variables_initializer().run(), accuracy from tf.equal(tf.argmax(...)). Rewritten for this
# project rather than copied. Edits: the import line; MNIST -> the local stand-in `input_data`;
# 1000 steps -> 100 with the loss printed every 25. No random numbers: no seed needed.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/tensorflow/mnist/input_data", one_hot=True)

x = tf.placeholder(tf.float32, [None, 784])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
y = tf.matmul(x, W) + b

y_ = tf.placeholder(tf.float32, [None, 10])
cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y))
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)

sess = tf.InteractiveSession()
tf.global_variables_initializer().run()
for step in range(100):
    batch_xs, batch_ys = mnist.train.next_batch(100)
    _, loss = sess.run([train_step, cross_entropy], feed_dict={x: batch_xs, y_: batch_ys})
    if step % 25 == 0:
        print("step", step, "cross entropy", loss)

correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
print(sess.run(accuracy, feed_dict={x: mnist.test.images, y_: mnist.test.labels}))
sess.close()
