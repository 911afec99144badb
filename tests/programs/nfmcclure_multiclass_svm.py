# A one-versus-all Gaussian-kernel SVM for three classes trained in its dual form: a [3, batch] Variable of dual
# coefficients, the targets' outer products by a batched (rank-3) matmul of expand_dims/reshape copies, the
# dual loss reduced over axes [1, 2], and a prediction kernel between the batch and a grid of points.
# After: nfmcclure/tensorflow_cookbook, 04_Support_Vector_Machines/06_Implementing_Multiclass_SVMs/
# 06_multiclass_svm.py (MIT, Nick McClure): x = (sepal length, petal width), one +1/-1 target row per class,
# batch_size 50, b = Variable(random_normal([3, batch_size])), gamma -10, the training kernel
# exp(gamma * |2 x x^T|) as the recipe writes it, reshape_matmul, the dual loss, the RBF prediction kernel,
# prediction = arg_max(output - expand_dims(reduce_mean(output, 1), 1), 0), accuracy against argmax(y, 0),
# GradientDescentOptimizer(0.01), 100 steps on np.random.choice batches printing 'Step #' and 'Loss = '
# every 25, then the predictions on a 0.02 mesh. Rewritten for this project rather than copied. Edits: the
# import line; sklearn's iris data -> 150 synthetic flowers (50 per class, measurements drawn around the
# three species' means and rounded to 0.1 cm as iris's are); np.random.seed / tf.set_random_seed (the recipe
# is unseeded); the three matplotlib figures -> printed: the last batch accuracy, the mean batch accuracy, the
# number of mesh points predicted for each class, and the first and last losses.
import numpy as np
import tensorflow.compat.v1 as tf

np.random.seed(6)

sess = tf.Session()

# edit: synthetic iris, columns (sepal length, sepal width, petal length, petal width), targets 0, 1, 2
rng = np.random.RandomState(6)
species = [((5.0, 3.4, 1.5, 0.25), (0.35, 0.38, 0.17, 0.1)),
           ((5.9, 2.8, 4.3, 1.33), (0.52, 0.31, 0.47, 0.2)),
           ((6.6, 3.0, 5.6, 2.03), (0.64, 0.32, 0.55, 0.27))]
iris_data = np.concatenate([np.round(rng.normal(mean, std, size=(50, 4)), 1) for mean, std in species])
iris_data[:, 3] = np.maximum(iris_data[:, 3], 0.1)
iris_target = np.repeat([0, 1, 2], 50)

x_vals = np.array([[x[0], x[3]] for x in iris_data])
y_vals1 = np.array([1 if y == 0 else -1 for y in iris_target])
y_vals2 = np.array([1 if y == 1 else -1 for y in iris_target])
y_vals3 = np.array([1 if y == 2 else -1 for y in iris_target])
y_vals = np.array([y_vals1, y_vals2, y_vals3])

batch_size = 50

x_data = tf.placeholder(shape=[None, 2], dtype=tf.float32)
y_target = tf.placeholder(shape=[3, None], dtype=tf.float32)
prediction_grid = tf.placeholder(shape=[None, 2], dtype=tf.float32)

tf.set_random_seed(6)  # edit: seeded
b = tf.Variable(tf.random_normal(shape=[3, batch_size]))

# the Gaussian kernel of the batch with itself
gamma = tf.constant(-10.0)
dist = tf.reduce_sum(tf.square(x_data), 1)
dist = tf.reshape(dist, [-1, 1])
sq_dists = tf.multiply(2., tf.matmul(x_data, tf.transpose(x_data)))
my_kernel = tf.exp(tf.multiply(gamma, tf.abs(sq_dists)))


def reshape_matmul(mat):
    """Each class's outer product y y^T, as one [3, batch, batch] batched matmul."""
    v1 = tf.expand_dims(mat, 1)
    v2 = tf.reshape(v1, [3, batch_size, 1])
    return tf.matmul(v2, v1)


# the dual problem: maximize sum(b) - sum(b b^T * y y^T * K), one classifier per class
first_term = tf.reduce_sum(b)
b_vec_cross = tf.matmul(tf.transpose(b), b)
y_target_cross = reshape_matmul(y_target)
second_term = tf.reduce_sum(tf.multiply(my_kernel, tf.multiply(b_vec_cross, y_target_cross)), [1, 2])
loss = tf.reduce_sum(tf.negative(tf.subtract(first_term, second_term)))

# the Gaussian kernel between the batch and the points to classify
rA = tf.reshape(tf.reduce_sum(tf.square(x_data), 1), [-1, 1])
rB = tf.reshape(tf.reduce_sum(tf.square(prediction_grid), 1), [-1, 1])
pred_sq_dist = tf.add(tf.subtract(rA, tf.multiply(2., tf.matmul(x_data, tf.transpose(prediction_grid)))),
                      tf.transpose(rB))
pred_kernel = tf.exp(tf.multiply(gamma, tf.abs(pred_sq_dist)))

prediction_output = tf.matmul(tf.multiply(y_target, b), pred_kernel)
prediction = tf.arg_max(prediction_output - tf.expand_dims(tf.reduce_mean(prediction_output, 1), 1), 0)
accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, tf.argmax(y_target, 0)), tf.float32))

my_opt = tf.train.GradientDescentOptimizer(0.01)
train_step = my_opt.minimize(loss)

init = tf.global_variables_initializer()
sess.run(init)

loss_vec = []
batch_accuracy = []
for i in range(100):
    rand_index = np.random.choice(len(x_vals), size=batch_size)
    rand_x = x_vals[rand_index]
    rand_y = y_vals[:, rand_index]
    sess.run(train_step, feed_dict={x_data: rand_x, y_target: rand_y})

    temp_loss = sess.run(loss, feed_dict={x_data: rand_x, y_target: rand_y})
    loss_vec.append(temp_loss)

    acc_temp = sess.run(accuracy, feed_dict={x_data: rand_x, y_target: rand_y, prediction_grid: rand_x})
    batch_accuracy.append(acc_temp)

    if (i + 1) % 25 == 0:
        print('Step #' + str(i + 1))
        print('Loss = ' + str(temp_loss))

# the mesh the recipe colours by predicted class
x_min, x_max = x_vals[:, 0].min() - 1, x_vals[:, 0].max() + 1
y_min, y_max = x_vals[:, 1].min() - 1, x_vals[:, 1].max() + 1
xx, yy = np.meshgrid(np.arange(x_min, x_max, 0.02), np.arange(y_min, y_max, 0.02))
grid_points = np.c_[xx.ravel(), yy.ravel()]
grid_predictions = sess.run(prediction, feed_dict={x_data: rand_x, y_target: rand_y, prediction_grid: grid_points})
grid_predictions = grid_predictions.reshape(xx.shape)

# edit: what the three plots showed, printed
print('Last batch accuracy: ' + str(batch_accuracy[-1]))
print('Mean batch accuracy: {:.4f}'.format(np.mean(batch_accuracy)))
print('Mesh points per class: ' + str(np.bincount(grid_predictions.ravel(), minlength=3)))
print('Loss: first {:.4f}, last {:.4f}'.format(loss_vec[0], loss_vec[-1]))
