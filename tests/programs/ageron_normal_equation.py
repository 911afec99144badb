# Linear regression solved by the normal equation, then by batch gradient descent three ways (hand-written
# gradients, tf.gradients, an optimizer), printing theta and the MSE every 100 epochs.
# After: ageron/handson-ml, 09_up_and_running_with_tensorflow.ipynb, "Linear Regression" sections (Apache 2.0
# license, Aurelien Geron): the same graphs (theta = (X^T X)^-1 X^T y with tf.matrix_inverse; theta drawn by
# tf.random_uniform(seed=42), MSE, tf.assign(theta, theta - learning_rate * gradients)) and what it prints.
# Rewritten for this project rather than copied (the search tool's terms keep public code out of our
# commits). Edits: the import line; California housing (a download) -> 200 points of our own with 4
# features, standardized by hand instead of by scikit-learn's StandardScaler; 1000 epochs -> 300; the
# three ways in one function; theta printed as a list (numpy's column padding depends on the digits).
import numpy as np
import tensorflow.compat.v1 as tf

rng = np.random.RandomState(42)
m, n = 200, 4
features = rng.uniform(0.0, 10.0, (m, n)) * np.array([1.0, 0.5, 2.0, 0.1])
target = features @ np.array([0.8, -1.5, 0.3, 4.0]) + 2.0 + rng.normal(0.0, 0.5, m)
housing_data_plus_bias = np.c_[np.ones((m, 1)), features]

# The normal equation
X = tf.constant(housing_data_plus_bias, dtype=tf.float32, name="X")
y = tf.constant(target.reshape(-1, 1), dtype=tf.float32, name="y")
XT = tf.transpose(X)
theta = tf.matmul(tf.matmul(tf.matrix_inverse(tf.matmul(XT, X)), XT), y)

with tf.Session() as sess:
    theta_value = theta.eval()

print("theta (TensorFlow):", theta_value.ravel().tolist())

X_np = housing_data_plus_bias
y_np = target.reshape(-1, 1)
theta_numpy = np.linalg.inv(X_np.T.dot(X_np)).dot(X_np.T).dot(y_np)
print("theta (NumPy):", theta_numpy.ravel().tolist())

# Batch gradient descent on standardized features
scaled = (features - features.mean(axis=0)) / features.std(axis=0)
scaled_housing_data_plus_bias = np.c_[np.ones((m, 1)), scaled]

n_epochs = 300
learning_rate = 0.01


def gradient_descent(how):
    tf.reset_default_graph()
    X = tf.constant(scaled_housing_data_plus_bias, dtype=tf.float32, name="X")
    y = tf.constant(target.reshape(-1, 1), dtype=tf.float32, name="y")
    theta = tf.Variable(tf.random_uniform([n + 1, 1], -1.0, 1.0, seed=42), name="theta")
    y_pred = tf.matmul(X, theta, name="predictions")
    error = y_pred - y
    mse = tf.reduce_mean(tf.square(error), name="mse")
    if how == "optimizer":
        optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
        training_op = optimizer.minimize(mse)
    else:
        if how == "manual":
            gradients = 2 / m * tf.matmul(tf.transpose(X), error)
        else:
            gradients = tf.gradients(mse, [theta])[0]
        training_op = tf.assign(theta, theta - learning_rate * gradients)

    init = tf.global_variables_initializer()
    with tf.Session() as sess:
        sess.run(init)
        for epoch in range(n_epochs):
            if epoch % 100 == 0:
                print(how, "Epoch", epoch, "MSE =", mse.eval())
            sess.run(training_op)
        best_theta = theta.eval()
    print(how, "best_theta:", best_theta.ravel().tolist())


for how in ("manual", "autodiff", "optimizer"):
    gradient_descent(how)
