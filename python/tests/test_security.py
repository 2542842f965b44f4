"""Noise-flooded decryption (IND-CPA-D, docs/security.md) through the Python
layer: the estimation run, the flooded results against plain floats within the
stated error, fresh noise at every decryption, and exact decryption again once
flooding is cleared. Results whose mask cancels (x - x, x * 0) come back
re-randomised, still decrypting to zero."""
import math
import random

import pytest

import heft as ts


def fresh_context():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[60, 49, 49, 60])
    ctx.global_scale = 2 ** 49
    return ctx


def test_flooded_decryption_after_an_estimation_run():
    ctx = fresh_context()
    rng = random.Random(7)
    sample = [rng.uniform(-1, 1) for _ in range(64)]
    real = [rng.uniform(-1, 1) for _ in range(64)]

    # The estimation run: the circuit (x * 0.75 + x^2) on sample inputs whose
    # result is known in plain floats.
    circuit = lambda v: v * 0.75 + v * v
    exact = lambda xs: [0.75 * x + x * x for x in xs]
    noise_bits = circuit(ts.ckks_vector(ctx, sample)).measure_noise_bits(exact(sample))
    assert 0 <= noise_bits < 30
    with pytest.raises(ValueError):  # not the circuit's result
        circuit(ts.ckks_vector(ctx, sample)).measure_noise_bits([1000.0] * 64)

    assert ctx.noise_flooding() is None  # off by default
    ctx.set_noise_flooding(noise_bits + 2)
    options = ctx.noise_flooding()
    assert options["statistical_security"] == 30 and options["decryptions"] == 1
    assert options["flooding_bits"] == pytest.approx(noise_bits + 2 + 15 + 3)

    result = circuit(ts.ckks_vector(ctx, real))
    # Each decoded value's added error: sigma sqrt(N / 2) / scale.
    slot_error = 2 ** options["flooding_bits"] * math.sqrt(8192 / 2) / result.scale()
    first, second = result.decrypt(), result.decrypt()
    assert first == pytest.approx(exact(real), abs=8 * slot_error)
    assert first != second  # fresh flooding noise every time

    ctx.clear_noise_flooding()
    assert result.decrypt() == result.decrypt()
    assert result.decrypt() == pytest.approx(exact(real), abs=1e-6)


def test_results_whose_mask_cancels_still_decrypt_to_zero(ckks_context, bfv_context):
    x = ts.ckks_vector(ckks_context, [0.5, -1.5, 2.0])
    for zero in (x - x, x * 0, x * [0, 0, 0], x.polyval([0])):
        assert zero.decrypt() == pytest.approx([0, 0, 0], abs=1e-4)
    y = ts.bfv_vector(bfv_context, [3, -4, 5])
    assert (y - y).decrypt() == [0, 0, 0]
    assert (y * 0).decrypt() == [0, 0, 0]
    assert issubclass(ts.TransparentCiphertextError, ValueError)


def test_decrypt_with_a_secret_key_kept_aside():
    # TenSEAL's pattern: keep the secret key, make the context public (what a
    # server gets), decrypt with the key.
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[60, 40, 40, 60])
    ctx.global_scale = 2 ** 40
    sk = ctx.secret_key()
    x = ts.ckks_vector(ctx, [1.5, -2.0, 0.25])
    t = ts.ckks_tensor(ctx, [[1.0, 2.0], [3.0, 4.0]])
    ctx.make_context_public()
    with pytest.raises(ValueError):
        x.decrypt()
    assert (x * 2).decrypt(sk) == pytest.approx([3.0, -4.0, 0.5], abs=1e-5)
    assert t.decrypt(sk).numpy().ravel().tolist() == pytest.approx([1.0, 2.0, 3.0, 4.0], abs=1e-5)
    with pytest.raises(ValueError):  # a public context has no key to give
        ctx.secret_key()
    with pytest.raises(TypeError):
        import pickle
        pickle.dumps(sk)

    bfv = ts.context(ts.SCHEME_TYPE.BFV, poly_modulus_degree=4096, plain_modulus=1032193)
    bfv_sk = bfv.secret_key()
    y = ts.bfv_vector(bfv, [3, -4, 5])
    bfv.make_context_public()
    assert (y + y).decrypt(bfv_sk) == [6, -8, 10]
    # A key of other parameters is refused, not used.
    with pytest.raises(ValueError):
        y.decrypt(sk)
