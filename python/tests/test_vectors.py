"""CKKS and BFV vectors against the same computation in Python floats and
integers: arithmetic with vectors, lists, scalars and numpy arrays, in-place
forms, dot, sum, polyval, matmul, serialization and pickling."""
import pickle
import random

import numpy as np
import pytest

import heft as ts


def values(n, seed):
    rng = random.Random(seed)
    return [rng.uniform(-1, 1) for _ in range(n)]


def test_ckks_arithmetic_matches_floats(ckks_context):
    a, b = values(10, 1), values(10, 2)
    x, y = ts.ckks_vector(ckks_context, a), ts.ckks_vector(ckks_context, b)
    assert x.size() == len(x) == 10
    approx = lambda v, tol=1e-5: pytest.approx(v, abs=tol)
    assert (x + y).decrypt() == approx([p + q for p, q in zip(a, b)])
    assert (x - y).decrypt() == approx([p - q for p, q in zip(a, b)])
    assert (x * y).decrypt() == approx([p * q for p, q in zip(a, b)])
    assert (x + b).decrypt() == approx([p + q for p, q in zip(a, b)])
    assert (x * np.array(b)).decrypt() == approx([p * q for p, q in zip(a, b)])
    assert (2 * x - 1).decrypt() == approx([2 * p - 1 for p in a])
    assert (1 - x).decrypt() == approx([1 - p for p in a])
    assert (-x).decrypt() == approx([-p for p in a])
    assert (x ** 3).decrypt() == approx([p ** 3 for p in a])
    assert x.square().decrypt() == approx([p * p for p in a])
    assert x.dot(y).decrypt() == approx([sum(p * q for p, q in zip(a, b))])
    assert x.dot(b).decrypt() == approx([sum(p * q for p, q in zip(a, b))])
    assert x.sum().decrypt() == approx([sum(a)])
    assert x.polyval([0.5, -1, 2]).decrypt() == approx([0.5 - p + 2 * p * p for p in a])
    m = [values(3, 10 + i) for i in range(10)]
    want = [sum(a[i] * m[i][j] for i in range(10)) for j in range(3)]
    assert x.matmul(m).decrypt() == approx(want)
    assert (x @ np.array(m)).decrypt() == approx(want)
    z = x.copy()
    z += y
    z *= 2
    z.square_()
    assert z.decrypt() == approx([(2 * (p + q)) ** 2 for p, q in zip(a, b)], 1e-4)
    assert x.decrypt() == approx(a)  # in-place forms left x alone


def test_ckks_vectors_longer_than_one_ciphertext(ckks_context):
    a = values(5000, 3)
    x = ts.ckks_vector(ckks_context, a)
    assert (x * 2 + x).decrypt() == pytest.approx([3 * p for p in a], abs=1e-5)
    assert x.sum().decrypt() == pytest.approx([sum(a)], abs=1e-4)


def test_ckks_rotations_and_slices_match_numpy(ckks_context):
    a = values(5000, 4)  # two ciphertexts of 4096 slots
    x = ts.ckks_vector(ckks_context, a)
    for steps in (1, -3, 4096, 4999):
        assert x.rotate(steps).decrypt() == pytest.approx(list(np.roll(a, -steps)), abs=1e-4)
    assert x[100:4200].decrypt() == pytest.approx(a[100:4200], abs=1e-4)
    assert x[-3:].decrypt() == pytest.approx(a[-3:], abs=1e-4)
    assert x[7].decrypt() == pytest.approx([a[7]], abs=1e-4)
    assert x[10:20].sum().decrypt() == pytest.approx([sum(a[10:20])], abs=1e-3)
    y = x.copy()
    y.rotate_(2)
    assert y.decrypt() == pytest.approx(list(np.roll(a, -2)), abs=1e-4)
    with pytest.raises(IndexError):
        x[5000]
    with pytest.raises(ValueError):
        x[0:10:2]
    with pytest.raises(ValueError, match="slice"):
        x[10:10]
    assert x.decrypt() == pytest.approx(a, abs=1e-5)


def test_bfv_pack_vectors_concatenates(bfv_context):
    rng = random.Random(5)
    vectors = [[rng.randrange(-1000, 1000) for _ in range(11)] for _ in range(4)]
    packed = ts.BFVVector.pack_vectors([ts.bfv_vector(bfv_context, v) for v in vectors])
    assert packed.decrypt() == [x for v in vectors for x in v]


def test_serialization_lazy_loading_and_pickling(ckks_context):
    a = values(6, 4)
    x = ts.ckks_vector(ckks_context, a)
    assert ts.ckks_vector_from(ckks_context, x.serialize()).decrypt() == pytest.approx(a, abs=1e-6)
    lazy = ts.lazy_ckks_vector_from(x.serialize())
    with pytest.raises(ValueError):
        lazy.decrypt()
    lazy.link_context(ckks_context)
    assert lazy.decrypt() == pytest.approx(a, abs=1e-6)
    unpickled = pickle.loads(pickle.dumps(x))
    unpickled.link_context(ckks_context)
    assert unpickled.decrypt() == pytest.approx(a, abs=1e-6)


def test_images_im2col_conv_and_pack(ckks_context):
    image = [values(8, 20 + r) for r in range(8)]
    kernel = [values(3, 40 + r) for r in range(3)]
    enc, windows = ts.im2col_encoding(ckks_context, image, 3, 3, 2)
    assert windows == 9
    conv = enc.conv2d_im2col(kernel, windows)
    want = [sum(image[r * 2 + i][c * 2 + j] * kernel[i][j] for i in range(3) for j in range(3))
            for r in range(3) for c in range(3)]
    assert conv.decrypt() == pytest.approx(want, abs=1e-4)
    packed = ts.CKKSVector.pack_vectors([conv, conv])
    assert packed.decrypt() == pytest.approx(want + want, abs=1e-4)


def test_bfv_arithmetic_is_exact(bfv_context):
    a, b = [3, -7, 12, 0, 5], [2, 4, -6, 9, 1]
    x, y = ts.bfv_vector(bfv_context, a), ts.bfv_vector(bfv_context, b)
    assert (x + y).decrypt() == [p + q for p, q in zip(a, b)]
    assert (x * y - 3).decrypt() == [p * q - 3 for p, q in zip(a, b)]
    assert x.dot(y).decrypt() == [sum(p * q for p, q in zip(a, b))]
    assert ts.bfv_vector_from(bfv_context, x.serialize()).decrypt() == a


def test_mismatches_are_typed_and_leave_operands_alone(ckks_context, bfv_context):
    x = ts.ckks_vector(ckks_context, [1.0, 2.0, 3.0])
    with pytest.raises(ts.MismatchError):
        x + ts.ckks_vector(ckks_context, [1.0, 2.0])
    with pytest.raises(ValueError):
        x.matmul([[1.0], [2.0]])
    with pytest.raises(ValueError):
        ts.ckks_vector(bfv_context, [1.0])
    assert x.decrypt() == pytest.approx([1.0, 2.0, 3.0], abs=1e-6)


def test_a_spent_bfv_noise_budget_raises_instead_of_wrong_values():
    small = ts.context(ts.SCHEME_TYPE.BFV, 4096, plain_modulus=1032193)
    small.generate_galois_keys()
    x, y = ts.bfv_vector(small, [3, -7, 12]), ts.bfv_vector(small, [2, 4, -6])
    with pytest.raises(ts.NoiseBudgetError):
        (x * y).sum().decrypt()


def test_encrypted_matrix_times_plain_vector(ckks_context):
    rng = np.random.default_rng(21)
    for rows, cols in [(1, 1), (3, 2), (9, 7), (16, 12)]:
        matrix, vector = rng.uniform(-1, 1, (rows, cols)), rng.uniform(-1, 1, cols)
        encoded = ts.enc_matmul_encoding(ckks_context, matrix.tolist())
        result = encoded.enc_matmul_plain(vector.tolist(), rows)
        assert result.size() == rows
        assert np.allclose(result.decrypt(), matrix @ vector, atol=1e-4), (rows, cols)
        # The slots past the rows are not zero; sum() masks them.
        assert abs(result.sum().decrypt()[0] - (matrix @ vector).sum()) < 1e-3, (rows, cols)
        encoded.enc_matmul_plain_(vector, rows)
        assert np.allclose(encoded.decrypt(), matrix @ vector, atol=1e-4)
    with pytest.raises(ValueError, match="rectangular"):
        ts.enc_matmul_encoding(ckks_context, [[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match="does not fit"):
        ts.enc_matmul_encoding(ckks_context, np.ones((128, 64)))
