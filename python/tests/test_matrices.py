"""Encrypted matrices (heft.ckks_matrix) against numpy: encrypted x encrypted products in one
block and in several, an encrypted vector times an encrypted matrix, serialization and
pickling, and the errors (shapes, block sizes, levels) raised as heft's exceptions."""
import pickle

import numpy as np
import pytest

import heft as ts


@pytest.fixture(scope="module")
def deep_context():
    # Three levels for a product of matrices: N = 8192, 50 / 30 x 3 / 50, scale 2^30.
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[50, 30, 30, 30, 50])
    ctx.global_scale = 2 ** 30
    ctx.generate_galois_keys()
    return ctx


def test_encrypt_and_decrypt_keep_the_matrix(deep_context):
    rng = np.random.default_rng(1)
    m = rng.uniform(-1, 1, (7, 12))
    enc = ts.ckks_matrix(deep_context, m)
    assert enc.shape == (7, 12)
    assert enc.block_size == 16
    np.testing.assert_allclose(enc.decrypt(), m, atol=1e-3)
    blocked = ts.ckks_matrix(deep_context, m, block=4)
    assert blocked.block_size == 4
    np.testing.assert_allclose((blocked + blocked).decrypt(), 2 * m, atol=1e-3)
    np.testing.assert_allclose((blocked - blocked).decrypt(), 0 * m, atol=1e-3)


@pytest.mark.parametrize("n, k, m, block", [(6, 9, 5, None), (20, 12, 9, 8)])
def test_encrypted_matrix_product(deep_context, n, k, m, block):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(-1, 1, (n, k)), rng.uniform(-1, 1, (k, m))
    x, y = ts.ckks_matrix(deep_context, a, block), ts.ckks_matrix(deep_context, b, block)
    z = x @ y
    assert z.shape == (n, m)
    assert z.level() == x.level() - 3
    np.testing.assert_allclose(z.decrypt(), a @ b, atol=5e-3)


@pytest.mark.parametrize("rows, cols, block", [(10, 6, None), (40, 50, 16)])
def test_encrypted_vector_times_encrypted_matrix(deep_context, rows, cols, block):
    rng = np.random.default_rng(rows)
    v, m = rng.uniform(-1, 1, rows), rng.uniform(-1, 1, (rows, cols))
    enc_v = ts.ckks_vector(deep_context, v)
    result = enc_v @ ts.ckks_matrix(deep_context, m, block)
    assert result.size() == cols
    np.testing.assert_allclose(result.decrypt(), v @ m, atol=5e-3)
    # The plain-matrix product still takes the plain path.
    np.testing.assert_allclose(enc_v.matmul(m).decrypt(), v @ m, atol=5e-3)


def test_exact_galois_keys(deep_context):
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[50, 30, 30, 30, 50])
    ctx.global_scale = 2 ** 30
    ctx.generate_galois_keys(ts.CKKSMatrix.galois_steps(ctx, 8))
    rng = np.random.default_rng(3)
    a, b = rng.uniform(-1, 1, (8, 8)), rng.uniform(-1, 1, (8, 8))
    z = ts.ckks_matrix(ctx, a) @ ts.ckks_matrix(ctx, b)
    np.testing.assert_allclose(z.decrypt(), a @ b, atol=5e-3)


def test_serialize_and_pickle(deep_context):
    rng = np.random.default_rng(4)
    m = rng.uniform(-1, 1, (5, 9))
    enc = ts.ckks_matrix(deep_context, m, block=4)
    loaded = ts.ckks_matrix_from(deep_context, enc.serialize())
    np.testing.assert_allclose(loaded.decrypt(), m, atol=1e-3)
    unpickled = pickle.loads(pickle.dumps(enc))
    with pytest.raises(ValueError):
        unpickled.decrypt()  # lazy until linked
    unpickled.link_context(deep_context)
    np.testing.assert_allclose(unpickled.decrypt(), m, atol=1e-3)
    with pytest.raises(ts.FormatError):
        ts.ckks_matrix_from(deep_context, enc.serialize()[:100])


def test_errors(deep_context, ckks_context):
    rng = np.random.default_rng(5)
    a = ts.ckks_matrix(deep_context, rng.uniform(-1, 1, (4, 5)))
    with pytest.raises(ts.MismatchError):
        a @ a  # 5 columns, 4 rows
    with pytest.raises(ts.MismatchError):
        a @ ts.ckks_matrix(deep_context, rng.uniform(-1, 1, (5, 3)), block=4)  # blocks 8 and 4
    with pytest.raises(ts.MismatchError):
        ts.ckks_vector(deep_context, [1.0, 2.0]) @ a
    with pytest.raises(ts.InvalidArgument):
        ts.ckks_matrix(deep_context, np.ones((4, 4)), block=3)
    with pytest.raises(ValueError):
        ts.ckks_matrix(deep_context, np.ones(4))
    with pytest.raises(TypeError):
        a.matmul(np.ones((5, 2)))
    # TenSEAL's 60 / 40 / 40 / 60 context has two levels: too few for three.
    shallow = ts.ckks_matrix(ckks_context, np.eye(4))
    with pytest.raises(ts.InvalidArgument, match="needs 3 levels"):
        shallow @ shallow
    np.testing.assert_allclose(shallow.decrypt(), np.eye(4), atol=1e-6)
