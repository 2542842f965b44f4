"""CKKS tensors, batched and not, and plain tensors, against numpy."""
import numpy as np
import pytest

import heft as ts


def test_plain_tensor_round_trips_numpy():
    a = np.arange(24, dtype=float).reshape(2, 3, 4)
    t = ts.plain_tensor(a)
    assert t.shape == [2, 3, 4]
    assert np.array_equal(t.numpy(), a)
    assert t.tolist() == a.tolist()
    assert np.array_equal(t.transpose().numpy(), a.transpose())
    assert np.array_equal(t.sum(1).numpy(), a.sum(1))


def test_unbatched_tensors_decrypt_to_their_shape(ckks_context):
    rng = np.random.default_rng(5)
    a, b = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 2))
    x, y = ts.ckks_tensor(ckks_context, a), ts.ckks_tensor(ckks_context, b)
    assert x.shape == [2, 3]
    assert np.allclose(x.decrypt().numpy(), a, atol=1e-6)
    assert np.allclose((x * 2 + 1).decrypt().numpy(), a * 2 + 1, atol=1e-5)
    assert np.allclose(x.mm(y).decrypt().numpy(), a @ b, atol=1e-5)
    assert np.allclose((x @ y).decrypt().numpy(), a @ b, atol=1e-5)
    assert np.allclose(x.sum(1).decrypt().numpy(), a.sum(1), atol=1e-5)
    assert np.allclose(x.polyval([1, 0, 1]).decrypt().numpy(), 1 + a * a, atol=1e-5)


def test_batched_tensors_convolve_and_multiply(ckks_context):
    rng = np.random.default_rng(6)
    images = rng.uniform(-1, 1, (5, 6, 6))
    kernels = rng.uniform(-1, 1, (2, 3, 3))
    x = ts.ckks_tensor(ckks_context, images, batch=True)
    y = x.conv2d(kernels, 3).decrypt().numpy()
    want = np.zeros((5, 2, 2, 2))
    for o in range(2):
        for r in range(2):
            for c in range(2):
                want[:, o, r, c] = (images[:, r * 3:r * 3 + 3, c * 3:c * 3 + 3] * kernels[o]).sum((1, 2))
    assert np.allclose(y, want, atol=1e-5)
    assert x.shape == [6, 6] and x.shape_with_batch == [5, 6, 6]
    flat = x.reshape([36])
    m = rng.uniform(-1, 1, (36, 4))
    assert np.allclose(flat.mm(m).decrypt().numpy(), images.reshape(5, 36) @ m, atol=1e-4)


def test_tensor_serialization(ckks_context):
    a = np.arange(6, dtype=float).reshape(2, 3) / 10
    x = ts.ckks_tensor(ckks_context, a)
    y = ts.ckks_tensor_from(ckks_context, x.serialize())
    assert y.shape == [2, 3]
    assert np.allclose(y.decrypt().numpy(), a, atol=1e-6)
    with pytest.raises(ts.FormatError):
        ts.ckks_tensor_from(ckks_context, x.serialize()[:-3])


def test_unbatched_dot_broadcast_and_negation_match_numpy(ckks_context):
    rng = np.random.default_rng(3)
    close = lambda got, want: np.allclose(np.array(got.decrypt().tolist()), want, atol=1e-3)
    for a_shape, b_shape in [((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((4,), (4,))]:
        a, b = rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape)
        x = ts.ckks_tensor(ckks_context, ts.plain_tensor(a))
        want = np.dot(a, b).reshape(-1) if a.ndim == b.ndim == 1 else np.dot(a, b)
        assert close(x.dot(ts.plain_tensor(b)), want)
        assert close(x.dot(ts.ckks_tensor(ckks_context, ts.plain_tensor(b))), want)
        assert close(x, a)  # the operand is unchanged
    a = rng.uniform(-1, 1, (2, 1))
    x = ts.ckks_tensor(ckks_context, ts.plain_tensor(a))
    assert x.broadcast([2, 4]).shape == [2, 4]
    assert close(x.broadcast([2, 4]), np.broadcast_to(a, (2, 4)))
    p = rng.uniform(-1, 1, (3, 2, 4))  # more and longer axes than x: x is stretched
    assert close(x * ts.plain_tensor(p), a * p)
    assert close(x + ts.plain_tensor(p), a + p)
    y = x.copy()
    y.neg_()
    assert close(y, -a)
    with pytest.raises(ValueError):
        x.dot(ts.plain_tensor(rng.uniform(-1, 1, (3, 2))))


def test_sum_batch_gives_the_unbatched_sum(ckks_context):
    data = np.arange(24, dtype=float).reshape(4, 2, 3) / 24
    x = ts.ckks_tensor(ckks_context, ts.plain_tensor(data), batch=True)
    total = x.sum_batch()
    assert total.shape == [2, 3]
    assert np.allclose(np.array(total.decrypt().tolist()), data.sum(0), atol=1e-3)
    with pytest.raises(ValueError):
        total.sum_batch()


def test_bfv_tensors_are_exact(bfv_context):
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, (2, 3))
    b = rng.integers(-50, 50, (3,))
    x = ts.bfv_tensor(bfv_context, ts.plain_tensor(a.tolist(), dtype="int"))
    y = ts.bfv_tensor(bfv_context, ts.plain_tensor(b.tolist(), dtype="int"))
    as_array = lambda t: np.array(t.decrypt().tolist())
    assert x.shape == [2, 3]
    assert (as_array(x) == a).all()
    assert (as_array(x + y) == a + b).all()
    assert (as_array(x * y) == a * b).all()
    assert (as_array(x - 3) == a - 3).all()
    assert (as_array(-x) == -a).all()
    assert (as_array(x ** 3) == a ** 3).all()
    assert (as_array(x.polyval([1, 0, 2])) == 1 + 2 * a * a).all()
    assert (as_array(x.sum(1)) == a.sum(1)).all()
    assert (as_array(x.transpose()) == a.T).all()
    assert (as_array(x.dot(ts.plain_tensor(b.tolist()))) == a.dot(b)).all()
    batched = ts.bfv_tensor(bfv_context, ts.plain_tensor(a.tolist()), batch=True)
    assert (np.array(batched.sum_batch().decrypt().tolist()) == a.sum(0)).all()
    loaded = ts.bfv_tensor_from(bfv_context, x.serialize())
    assert (as_array(loaded) == a).all()
    with pytest.raises(ValueError):
        ts.bfv_tensor(bfv_context, ts.plain_tensor([1.5, 2.0]))


def test_batched_rotations_roll_the_batch(ckks_context):
    slots = 4096  # N = 8192
    x = np.random.default_rng(9).uniform(-1, 1, (slots, 3))
    t = ts.ckks_tensor(ckks_context, x, batch=True)
    assert np.allclose(t.rotate(5).decrypt().numpy(), np.roll(x, -5, axis=0), atol=1e-5)
    assert np.allclose(t.rotate(-2).decrypt().numpy(), np.roll(x, 2, axis=0), atol=1e-5)
    hoisted = t.rotate_hoisted([0, 1, -3])
    assert hoisted.shape == [3, 3] and hoisted.shape_with_batch == [slots, 3, 3]
    want = np.stack([np.roll(x, -s, axis=0) for s in (0, 1, -3)], axis=1)
    assert np.allclose(hoisted.decrypt().numpy(), want, atol=1e-5)
    t.rotate_(1)
    assert np.allclose(t.decrypt().numpy(), np.roll(x, -1, axis=0), atol=1e-5)
    short = ts.ckks_tensor(ckks_context, x[:10], batch=True)
    with pytest.raises(ValueError, match="does not fill"):
        short.rotate(1)
    with pytest.raises(ValueError, match="batched"):
        ts.ckks_tensor(ckks_context, x[0]).rotate(1)


def test_subscripts_keep_the_data_encrypted(ckks_context):
    a = np.random.default_rng(10).uniform(-1, 1, (4, 3, 5))
    batched = ts.ckks_tensor(ckks_context, a, batch=True)
    assert batched.shape == [3, 5]  # TenSEAL's: the batch axis left out
    for key in [1, slice(1, 3), (-1, slice(None, None, 2)), (2, 4)]:
        got = batched[key]
        assert isinstance(got, ts.CKKSTensor)
        want = a[(slice(None),) + (key if isinstance(key, tuple) else (key,))]
        assert np.allclose(got.decrypt().numpy(), want, atol=1e-6), key
    plain = ts.ckks_tensor(ckks_context, a[0])
    assert plain[1].shape == [5]
    assert np.allclose(plain[1].decrypt().numpy(), a[0][1], atol=1e-6)
    assert np.allclose(plain[:, 2:4].decrypt().numpy(), a[0][:, 2:4], atol=1e-6)
    assert np.allclose(batched.take([2, 0], 0).decrypt().numpy(), a[:, [2, 0]], atol=1e-6)
    assert np.allclose(plain.take([4, 1], -1).decrypt().numpy(), a[0][:, [4, 1]], atol=1e-6)
    with pytest.raises(IndexError, match="out of range"):
        plain[3]
    with pytest.raises(IndexError, match="too many"):
        plain[0, 0, 0]


def test_tenseal_shape_conventions(ckks_context, bfv_context):
    a = np.arange(24, dtype=float).reshape(4, 2, 3) / 24
    t = ts.ckks_tensor(ckks_context, a, batch=True)
    assert t.shape == [2, 3] and t.shape_with_batch == [4, 2, 3]
    assert t.reshape([6]).shape == [6]
    assert np.allclose(t.reshape([3, 2]).decrypt().numpy(), a.reshape(4, 3, 2), atol=1e-6)
    # sum(0) sums the batch (sum_batch), sum(k) an axis of the full array.
    assert np.allclose(t.sum(0).decrypt().numpy(), a.sum(0), atol=1e-5)
    assert np.allclose(t.sum(2).decrypt().numpy(), a.sum(2), atol=1e-5)
    # A vector's sum and a dot of two vectors are scalars.
    v = ts.bfv_tensor(bfv_context, ts.plain_tensor([1, 2, 3], dtype="int"))
    total = v.sum()
    assert total.shape == [] and total.decrypt().tolist() == 6
    assert v.dot([4, 5, 6]).decrypt().tolist() == 32
    v.dot_([1, 1, 1])
    assert v.shape == [] and v.decrypt().tolist() == 6
    assert np.array(v.decrypt().numpy()).shape == ()
    # A scalar broadcast against a vector gives the vector's shape.
    w = ts.bfv_tensor(bfv_context, ts.plain_tensor([1, 2, 3], dtype="int"))
    assert (v + w).shape == [3] and (v + w).decrypt().tolist() == [7, 8, 9]
    assert (v * 2).shape == []
    # pow(0) is ones, encrypted.
    w = ts.bfv_tensor(bfv_context, ts.plain_tensor([[2, 3], [4, 5]], dtype="int"))
    assert w.pow(0).decrypt().tolist() == [[1, 1], [1, 1]]
    w.transpose_()
    assert w.decrypt().tolist() == [[2, 4], [3, 5]]
    m = ts.ckks_tensor(ckks_context, a[0])
    assert np.allclose(m.mm(a[1].T).decrypt().numpy(), a[0] @ a[1].T, atol=1e-4)


def test_plain_tensor_bytes_round_trip_and_refuse_garbage():
    a = np.arange(24, dtype=float).reshape(2, 3, 4) / 7
    t = ts.plain_tensor(a)
    back = ts.plain_tensor_from(t.serialize())
    assert back.shape == [2, 3, 4] and back.strides() == [12, 4, 1]
    assert np.array_equal(back.numpy(), a)
    data = t.serialize()
    for bad in [b"", data[:-8], b"x" + data[1:], data + b"\0" * 8]:
        with pytest.raises(ValueError):
            ts.plain_tensor_from(bad)
