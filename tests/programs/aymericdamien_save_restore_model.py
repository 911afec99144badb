# Train a ReLU MLP, save it with tf.train.Saver, restore it in a second session and resume training.
# After: aymericdamien/TensorFlow-Examples, examples/4_Utils/save_restore_model.py (MIT license,
# Aymeric Damien): same 784-256-256-10 ReLU network of tf.random_normal variables, Adam(0.001),
# Saver() over all variables, "Starting 1st session..." / "Model saved in file" / "Model restored from
# file" / "Starting 2nd session..." flow (the second session runs init, then restores). Rewritten for
# this project rather than copied (Python 3). Edits: the import line; MNIST -> the local stand-in
# `input_data`; model_path "/tmp/model.ckpt" -> "model.ckpt" (the harness runs each program in its own
# temporary directory); epochs 3 + 7 -> 1 + 2; tf.set_random_seed(3) added so both runs agree.
import tensorflow.compat.v1 as tf
import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
tf.set_random_seed(3)

learning_rate = 0.001
batch_size = 100
display_step = 1
model_path = "model.ckpt"

n_hidden_1 = 256
n_hidden_2 = 256
n_input = 784
n_classes = 10

x = tf.placeholder("float", [None, n_input])
y = tf.placeholder("float", [None, n_classes])


def multilayer_perceptron(x, weights, biases):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights['h1']), biases['b1']))
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights['h2']), biases['b2']))
    return tf.matmul(layer_2, weights['out']) + biases['out']


weights = {
    'h1': tf.Variable(tf.random_normal([n_input, n_hidden_1])),
    'h2': tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2])),
    'out': tf.Variable(tf.random_normal([n_hidden_2, n_classes])),
}
biases = {
    'b1': tf.Variable(tf.random_normal([n_hidden_1])),
    'b2': tf.Variable(tf.random_normal([n_hidden_2])),
    'out': tf.Variable(tf.random_normal([n_classes])),
}

pred = multilayer_perceptron(x, weights, biases)
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(cost)
init = tf.global_variables_initializer()
saver = tf.train.Saver()


def train(sess, epochs):
    for epoch in range(epochs):
        avg_cost = 0.
        total_batch = int(mnist.train.num_examples / batch_size)
        for i in range(total_batch):
            batch_x, batch_y = mnist.train.next_batch(batch_size)
            _, c = sess.run([optimizer, cost], feed_dict={x: batch_x, y: batch_y})
            avg_cost += c / total_batch
        if epoch % display_step == 0:
            print("Epoch:", '%04d' % (epoch + 1), "cost=", "{:.9f}".format(avg_cost))


correct_prediction = tf.equal(tf.argmax(pred, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))

print("Starting 1st session...")
with tf.Session() as sess:
    sess.run(init)
    train(sess, 1)
    print("First Optimization Finished!")
    print("Accuracy:", accuracy.eval({x: mnist.test.images, y: mnist.test.labels}))
    save_path = saver.save(sess, model_path)
    print("Model saved in file: %s" % save_path)

print("Starting 2nd session...")
with tf.Session() as sess:
    sess.run(init)
    saver.restore(sess, model_path)
    print("Model restored from file: %s" % save_path)
    print("Accuracy after restore:", accuracy.eval({x: mnist.test.images, y: mnist.test.labels}))
    train(sess, 2)
    print("Second Optimization Finished!")
    print("Accuracy:", accuracy.eval({x: mnist.test.images, y: mnist.test.labels}))
