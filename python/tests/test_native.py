"""heft.native: the scheme layer (parameters, keys, encoders, encryptors, evaluators) of CKKS,
BFV and BGV, against numpy. CKKS results must be within TOLERANCE of numpy's; BFV and BGV
results must equal numpy's integer arithmetic mod t exactly."""
import copy
import inspect
import pickle
import re
from types import SimpleNamespace

import numpy as np
import pytest

import heft
from heft import native

# CKKS at scale 2^40 over 40-bit primes, values in [-1, 1], one or two products: the error
# measured is about 1e-7; 1e-5 leaves room for the random draws.
TOLERANCE = 1e-5


def centred(values, t):
    """Integers mod t in (-t/2, t/2], as BatchEncoder.decode gives them."""
    values = np.asarray(values, dtype=np.int64) % t
    return np.where(values > t // 2, values - t, values)


def rows_rolled(values, step):
    """Both rows of the 2 x N/2 slot matrix rotated left by `step`."""
    half = len(values) // 2
    return np.concatenate([np.roll(values[:half], -step), np.roll(values[half:], -step)])


@pytest.fixture(scope="module")
def ckks():
    context = native.Context(native.Parameters.ckks(8192, [60, 40, 40, 60]))
    keygen = native.KeyGenerator(context)
    secret = keygen.secret_key()
    return SimpleNamespace(
        context=context, keygen=keygen, secret=secret,
        public=keygen.create_public_key(), relin=keygen.create_relin_key(),
        galois=keygen.create_galois_keys([1, -1, 2, 4], include_conjugation=True),
        encoder=native.CKKSEncoder(context),
        encryptor=native.CKKSEncryptor(keygen.create_public_key()),
        decryptor=native.CKKSDecryptor(secret), evaluator=native.CKKSEvaluator(context),
        rng=np.random.default_rng(39))


def integer_scheme(parameters, scheme, seed):
    """Keys, encoder, encryptor, decryptor and evaluator of "bfv" or "bgv" on `parameters`."""
    context = native.Context(parameters)
    keygen = native.KeyGenerator(context, bgv=scheme == "bgv")
    prefix = scheme.upper()
    return SimpleNamespace(
        context=context, keygen=keygen, t=context.plain_modulus,
        relin=keygen.create_relin_key(),
        galois=keygen.create_galois_keys([1, -1, 2, -2], include_conjugation=True),
        encoder=native.BatchEncoder(context),
        encryptor=getattr(native, prefix + "Encryptor")(keygen.create_public_key()),
        decryptor=getattr(native, prefix + "Decryptor")(keygen.secret_key()),
        evaluator=getattr(native, prefix + "Evaluator")(context),
        rng=np.random.default_rng(seed))


@pytest.fixture(scope="module")
def bfv():
    return integer_scheme(native.Parameters.bfv(8192, [50, 50, 50, 60], 1032193), "bfv", 40)


@pytest.fixture(scope="module")
def bgv():
    return integer_scheme(native.Parameters.suggest_bgv(depth=2, plain_bits=20), "bgv", 41)


def ckks_encrypt(s, values):
    return s.encryptor.encrypt(s.encoder.encode(values))


def ckks_decrypt(s, ciphertext):
    return s.encoder.decode(s.decryptor.decrypt(ciphertext))


def integer_encrypt(s, values):
    return s.encryptor.encrypt(s.encoder.encode(values))


def integer_decrypt(s, ciphertext):
    return s.encoder.decode(s.decryptor.decrypt(ciphertext))


# ---- parameters and contexts ----

def test_the_package_exposes_native():
    assert heft.native is native and "native" in heft.__all__
    assert native.Ciphertext.__module__ == "heft.native"


def test_parameters_are_validated_and_show_their_security():
    p = native.Parameters.ckks(8192, [60, 40, 40, 60])
    assert p.poly_modulus_degree == 8192 and p.security == native.SecurityLevel.classic128
    assert len(p.ciphertext_moduli) == 3 and len(p.special_moduli) == 1
    assert p.total_bits == 200 and p.max_total_bits == native.max_log_qp(8192,
                                                                         p.security) == 218
    assert p.scale == 2.0 ** 40 and p.plain_modulus == 0 and "N=8192" in repr(p)
    with pytest.raises(heft.InvalidArgument, match="HE Standard|bound|security|bits"):
        native.Parameters.ckks(4096, [60, 40, 40, 60])
    insecure = native.Parameters.ckks(4096, [60, 40, 40, 60], security=native.SecurityLevel.none)
    assert insecure.max_total_bits is None
    with pytest.raises(heft.InvalidArgument):
        native.Parameters(3000, [40])  # not a power of two
    with pytest.raises(heft.InvalidArgument):
        native.Parameters.ckks(8192, [60, 40, 40, 60], scale=2.0 ** 90)  # a product overflows


def test_parameter_helpers():
    p = native.Parameters.suggest_ckks(depth=3, scale_bits=40)
    assert len(p.ciphertext_moduli) >= 4 and p.security == native.SecurityLevel.classic128
    q = native.Parameters.suggest_bfv(depth=1, plain_modulus=65537)
    assert q.plain_modulus == 65537 and q.total_bits <= q.max_total_bits
    sparse = native.Parameters(8192, [60, 40, 40], [60], scale=2.0 ** 40,
                               secret_hamming_weight=64)
    assert sparse.secret_hamming_weight == 64 and p.secret_hamming_weight == 0


def test_parameters_and_contexts_travel():
    p = native.Parameters.bfv(8192, [50, 50, 50, 60], 1032193)
    assert native.Parameters.load(p.serialize()) == p and hash(pickle.loads(pickle.dumps(p))) == hash(p)
    insecure = native.Parameters.ckks(4096, [60, 40, 60], security=native.SecurityLevel.none)
    with pytest.raises(heft.InvalidArgument):
        native.Parameters.load(insecure.serialize())
    assert native.Parameters.load(insecure.serialize(), allow_insecure_parameters=True) == insecure
    assert pickle.loads(pickle.dumps(insecure)) == insecure
    context = native.Context(insecure)
    with pytest.raises(heft.InvalidArgument):
        native.Context.load(context.serialize())
    loaded = native.Context.load(context.serialize(), allow_insecure_parameters=True)
    assert loaded != context and loaded.parameters == insecure  # a new context
    assert pickle.loads(pickle.dumps(context)) == context  # the live one
    assert context.max_level == 1 and context.level_count == 2 and context.supports_key_switching
    assert context.galois_element_for_step(1) == 5
    assert context.conjugation_galois_element == 2 * 4096 - 1


# ---- CKKS ----

def test_ckks_multiply_relinearize_rescale(ckks):
    x, y = ckks.rng.uniform(-1, 1, (2, ckks.encoder.slot_count))
    cx, cy = ckks_encrypt(ckks, x), ckks_encrypt(ckks, y)
    assert cx.level == ckks.context.max_level == 2 and cx.size == 2
    assert cx.scale == ckks.encoder.scale_at(2) == ckks.context.scale
    product = ckks.evaluator.multiply(cx, cy)
    assert product.size == 3
    relinearized = ckks.evaluator.relinearize(product, ckks.relin)
    assert relinearized.size == 2
    rescaled = ckks.evaluator.rescale(relinearized)
    assert rescaled.level == 1 and not rescaled.needs_rescale
    assert rescaled.scale == pytest.approx(ckks.evaluator.scale_at(1), rel=1e-9)
    assert np.max(np.abs(ckks_decrypt(ckks, rescaled) - x * y)) < TOLERANCE
    # Two products in sequence, the second with its rescale fused.
    cube = ckks.evaluator.multiply_rescale(rescaled, ckks.evaluator.drop_to_level(cx, 1),
                                           ckks.relin)
    assert cube.level == 0
    assert np.max(np.abs(ckks_decrypt(ckks, cube).real - x * y * x)) < TOLERANCE


def test_ckks_complex_values_and_conjugation(ckks):
    n = ckks.encoder.slot_count
    z = ckks.rng.uniform(-1, 1, n) + 1j * ckks.rng.uniform(-1, 1, n)
    w = ckks.rng.uniform(-1, 1, n) + 1j * ckks.rng.uniform(-1, 1, n)
    cz, cw = ckks_encrypt(ckks, z), ckks_encrypt(ckks, w)
    product = ckks.evaluator.rescale(ckks.evaluator.multiply(cz, cw, ckks.relin))
    assert np.max(np.abs(ckks_decrypt(ckks, product) - z * w)) < TOLERANCE
    conjugated = ckks.evaluator.conjugate(cz, ckks.galois)
    assert np.max(np.abs(ckks_decrypt(ckks, conjugated) - np.conj(z))) < TOLERANCE


def test_ckks_rotations(ckks):
    x = ckks.rng.uniform(-1, 1, ckks.encoder.slot_count)
    cx = ckks_encrypt(ckks, x)
    for step in (1, -1, 3, 7, -6):  # 3, 7 and -6 composed from the keys for +-1, 2, 4
        rotated = ckks.decryptor.decrypt(ckks.evaluator.rotate(cx, step, ckks.galois))
        assert np.max(np.abs(ckks.encoder.decode_real(rotated) - np.roll(x, -step))) < TOLERANCE
    hoisted = ckks.evaluator.rotate_hoisted(cx, [1, 2, 4], ckks.galois)
    for step, ciphertext in zip([1, 2, 4], hoisted):
        assert np.max(np.abs(ckks_decrypt(ckks, ciphertext).real - np.roll(x, -step))) < TOLERANCE
    assert ckks.galois.has_step(4) and not ckks.galois.has_step(3) and len(ckks.galois) == 5


def test_ckks_plain_and_scalar_operands(ckks):
    x, y = ckks.rng.uniform(-1, 1, (2, 100))  # sparse input: the other slots are 0
    cx = ckks_encrypt(ckks, x)
    plain = ckks.encoder.encode(y)
    assert plain.level == 2 and plain.scale == ckks.context.scale
    ev = ckks.evaluator
    checks = [
        (ev.add(cx, cx), 2 * x), (ev.sub(cx, ev.negate(cx)), 2 * x), (ev.negate(cx), -x),
        (ev.add_plain(cx, plain), x + y), (ev.sub_plain(cx, plain), x - y),
        (ev.rescale(ev.multiply_plain(cx, plain)), x * y), (ev.add_scalar(cx, 0.5), x + 0.5),
        (ev.sub_scalar(cx, 0.25), x - 0.25), (ev.rescale(ev.multiply_scalar(cx, -1.5)), -1.5 * x),
        (ev.multiply_integer(cx, 3), 3 * x),
        (ev.rescale(ev.square(cx, ckks.relin)), x * x),
    ]
    for ciphertext, expected in checks:
        assert np.max(np.abs(ckks_decrypt(ckks, ciphertext)[:100].real - expected)) < TOLERANCE
    lower = ckks.encoder.encode(y, level=1)
    assert lower.level == 1 and lower.scale == ckks.encoder.scale_at(1)
    explicit = ckks.encoder.encode(y, scale=2.0 ** 30, slots=128)
    assert explicit.scale == 2.0 ** 30 and explicit.slots == 128


def test_ckks_manual_scale_mode(ckks):
    manual = native.CKKSEvaluator(ckks.context, native.ScaleMode.manual)
    assert manual.mode == native.ScaleMode.manual
    x = ckks.rng.uniform(-1, 1, 16)
    cx = ckks_encrypt(ckks, x)
    product = manual.multiply(cx, cx, ckks.relin)
    assert product.level == 2 and manual.effective_level(product) == 2
    with pytest.raises(heft.InvalidArgument):
        manual.add(product, cx)  # other scales: manual mode refuses
    aligned = manual.align_to(cx, 1, manual.scale_at(1))
    total = manual.add(manual.rescale(product), aligned)
    assert np.max(np.abs(ckks_decrypt(ckks, total)[:16].real - (x * x + x))) < TOLERANCE


# ---- BFV and BGV ----

@pytest.fixture(params=["bfv", "bgv"])
def integer(request):
    return request.getfixturevalue(request.param)


def test_integer_multiply_relinearize_exact(integer):
    n = integer.encoder.slot_count
    a, b = integer.rng.integers(-(integer.t // 2), integer.t // 2, (2, n))
    ca, cb = integer_encrypt(integer, a), integer_encrypt(integer, b)
    product = integer.evaluator.multiply(ca, cb)
    assert product.size == 3
    relinearized = integer.evaluator.relinearize(product, integer.relin)
    assert np.array_equal(integer_decrypt(integer, relinearized), centred(a * b, integer.t))
    squared = integer.evaluator.square(ca, integer.relin)
    assert np.array_equal(integer_decrypt(integer, squared), centred(a * a, integer.t))
    assert integer.decryptor.invariant_noise_budget(squared) > 0
    assert integer.decryptor.invariant_noise_budget(squared) < \
        integer.decryptor.invariant_noise_budget(ca)


def test_integer_rotations_exact(integer):
    a = integer.rng.integers(0, integer.t, integer.encoder.slot_count, dtype=np.uint64)
    ca = integer_encrypt(integer, a)
    for step in (1, -1, 3, -2):  # 3 composed from 1 and 2
        rotated = integer.evaluator.rotate_rows(ca, step, integer.galois)
        assert np.array_equal(integer.encoder.decode(integer.decryptor.decrypt(rotated),
                                                     signed=False),
                              rows_rolled(a, step))
    swapped = integer.evaluator.rotate_columns(ca, integer.galois)
    half = integer.encoder.row_size
    assert np.array_equal(integer.encoder.decode(integer.decryptor.decrypt(swapped), signed=False),
                          np.concatenate([a[half:], a[:half]]))


def test_integer_plain_and_scalar_operands(integer):
    a, b = integer.rng.integers(-1000, 1000, (2, 64))
    ca, pb = integer_encrypt(integer, a), integer.encoder.encode(b)
    ev, t = integer.evaluator, integer.t
    checks = [
        (ev.add(ca, ca), 2 * a), (ev.sub(ca, ev.negate(ca)), 2 * a), (ev.negate(ca), -a),
        (ev.add_plain(ca, pb), a + b), (ev.sub_plain(ca, pb), a - b),
        (ev.multiply_plain(ca, pb), a * b), (ev.add_scalar(ca, -7), a - 7),
        (ev.multiply_scalar(ca, -3), -3 * a),
    ]
    for ciphertext, expected in checks:
        assert np.array_equal(integer_decrypt(integer, ciphertext)[:64], centred(expected, t))


def test_bfv_mod_switch(bfv):
    a = bfv.rng.integers(-100, 100, 32)
    ca = integer_encrypt(bfv, a)
    switched = bfv.evaluator.mod_switch_to_next(ca)
    assert switched.level == ca.level - 1
    assert np.array_equal(integer_decrypt(bfv, switched)[:32], a)
    assert bfv.decryptor.invariant_noise_budget(switched) > 0
    lower = bfv.encryptor.encrypt(bfv.encoder.encode(a), level=0)
    assert lower.level == 0 and np.array_equal(integer_decrypt(bfv, lower)[:32], a)


def test_bgv_levels_and_noise_estimate(bgv):
    a = bgv.rng.integers(-100, 100, 32)
    ca = integer_encrypt(bgv, a)
    assert bgv.evaluator.mode == native.ModSwitchMode.automatic
    assert ca.noise_log2 < float("inf")
    product = bgv.evaluator.multiply(ca, ca, bgv.relin)  # switched down a level
    assert product.level == ca.level - 1
    estimate = bgv.evaluator.estimated_noise_budget(product)
    assert 0 < estimate <= bgv.decryptor.invariant_noise_budget(product)
    manual = native.BGVEvaluator(bgv.context, native.ModSwitchMode.manual)
    switched = manual.mod_switch(ca)
    assert switched.level == ca.level - 1
    bottom = manual.mod_switch_to(ca, 0)
    for ciphertext in (switched, bottom):
        assert np.array_equal(integer_decrypt(bgv, ciphertext)[:32], a)
    with pytest.raises(heft.MismatchError):
        manual.add(ca, switched)  # manual mode: levels must match
    assert np.array_equal(integer_decrypt(bgv, bgv.evaluator.add(ca, switched))[:32], 2 * a)


def test_coefficient_plaintexts(bfv):
    plain = native.IntegerPlaintext.from_coefficients(bfv.context, [1, -2, 3])
    coefficients = plain.coefficients
    assert coefficients.dtype == np.uint64 and len(coefficients) == 8192
    assert list(coefficients[:4]) == [1, bfv.t - 2, 3, 0] and plain.plain_modulus == bfv.t
    back = bfv.decryptor.decrypt(bfv.encryptor.encrypt(plain))
    assert np.array_equal(back.coefficients, coefficients)


# ---- bytes and pickles ----

def test_ciphertexts_plaintexts_and_keys_round_trip(ckks, bfv):
    x = ckks.rng.uniform(-1, 1, 64)
    plain = ckks.encoder.encode(x)
    ciphertext = ckks.encryptor.encrypt(plain)
    for compression in (native.Compression.none, native.Compression.zstd):
        loaded = native.Ciphertext.load(ckks.context, ciphertext.serialize(compression))
        assert np.max(np.abs(ckks_decrypt(ckks, loaded)[:64].real - x)) < TOLERANCE
    loaded_plain = native.Plaintext.load(ckks.context, plain.serialize())
    assert loaded_plain.scale == plain.scale and loaded_plain.level == plain.level
    assert np.max(np.abs(ckks.encoder.decode_real(loaded_plain)[:64] - x)) < TOLERANCE
    integer_plain = bfv.encoder.encode([5, -6])
    assert np.array_equal(
        native.IntegerPlaintext.load(bfv.context, integer_plain.serialize()).coefficients,
        integer_plain.coefficients)
    # Keys: each loaded key does its work.
    relin = native.RelinKey.load(ckks.context, ckks.relin.serialize())
    galois = native.GaloisKeys.load(ckks.context, ckks.galois.serialize())
    public = native.PublicKey.load(ckks.context, ckks.public.serialize())
    secret = native.SecretKey.load(ckks.context, ckks.secret.serialize())
    assert galois.elements() == ckks.galois.elements()
    fresh = native.CKKSEncryptor(public).encrypt(plain)
    squared = ckks.evaluator.rescale(ckks.evaluator.square(fresh, relin))
    rotated = ckks.evaluator.rotate(squared, 1, galois)
    decrypted = ckks.encoder.decode_real(native.CKKSDecryptor(secret).decrypt(rotated))
    assert np.max(np.abs(decrypted[:63] - (x * x)[1:])) < TOLERANCE
    public2, relin2, galois2 = native.load_key_set(
        ckks.context, native.serialize_key_set(relin_key=ckks.relin, galois_keys=ckks.galois))
    assert public2 is None and relin2.max_level == ckks.relin.max_level and len(galois2) == 5


def test_pickles_attach_to_the_live_context(ckks, bgv):
    x = ckks.rng.uniform(-1, 1, 8)
    ciphertext = ckks_encrypt(ckks, x)
    back, relin = pickle.loads(pickle.dumps((ciphertext, ckks.relin)))
    assert back.context == ckks.context and relin.context == ckks.context
    assert back.serialize() == ciphertext.serialize()
    squared = ckks.evaluator.square(back, relin)  # the original evaluator takes them
    assert np.max(np.abs(ckks_decrypt(ckks, ckks.evaluator.rescale(squared))[:8].real - x * x)) \
        < TOLERANCE
    for key in (ckks.public, ckks.galois, ckks.encoder.encode(x)):
        assert pickle.loads(pickle.dumps(key)).serialize() == key.serialize()
    a = bgv.rng.integers(-50, 50, 16)
    cb = integer_encrypt(bgv, a)
    cb2 = pickle.loads(pickle.dumps(cb))
    assert cb2.noise_log2 == cb.noise_log2 and cb2.correction == cb.correction
    assert np.array_equal(integer_decrypt(bgv, cb2)[:16], a)
    assert copy.deepcopy(cb).serialize() == cb.serialize() == cb.copy().serialize()
    with pytest.raises(TypeError, match="secret key"):
        pickle.dumps(ckks.secret)


def test_insecure_objects_pickle_with_their_parameters():
    parameters = native.Parameters.bfv(4096, [40, 40, 40, 40], 40961,
                                       security=native.SecurityLevel.none)
    context = native.Context(parameters)
    keygen = native.KeyGenerator(context)
    encoder = native.BatchEncoder(context)
    ciphertext = native.BFVEncryptor(keygen.secret_key()).encrypt(encoder.encode([1, 2, 3]))
    back = pickle.loads(pickle.dumps(ciphertext))
    assert back.context == context
    assert list(encoder.decode(native.BFVDecryptor(keygen.secret_key()).decrypt(back))[:3]) == \
        [1, 2, 3]


# ---- refusals: typed errors, operands unchanged ----

def test_objects_of_another_context_are_refused(ckks, bfv):
    other = native.Context(ckks.context.parameters)  # same parameters, another context
    assert other != ckks.context
    other_keygen = native.KeyGenerator(other)
    x = ckks.rng.uniform(-1, 1, 8)
    mine = ckks_encrypt(ckks, x)
    theirs = native.CKKSEncryptor(other_keygen.secret_key()).encrypt(
        native.CKKSEncoder(other).encode(x))
    before = mine.serialize(), theirs.serialize()
    with pytest.raises(heft.MismatchError):
        ckks.evaluator.add(mine, theirs)
    with pytest.raises(heft.MismatchError):
        native.CKKSEvaluator(other).multiply(mine, mine)
    with pytest.raises(heft.MismatchError):
        ckks.evaluator.square(mine, other_keygen.create_relin_key())
    with pytest.raises(heft.MismatchError):
        ckks.decryptor.decrypt(theirs)
    with pytest.raises(heft.MismatchError):
        native.Ciphertext.load(bfv.context, mine.serialize())  # other parameters
    assert native.Ciphertext.load(other, mine.serialize()).context == other  # same ones
    assert (mine.serialize(), theirs.serialize()) == before


def test_missing_galois_keys_are_named(ckks, bfv):
    evens = ckks.keygen.create_galois_keys([2])
    x = ckks.rng.uniform(-1, 1, 8)
    cx = ckks_encrypt(ckks, x)
    before = cx.serialize()
    with pytest.raises(heft.InvalidArgument, match="3"):
        ckks.evaluator.rotate(cx, 3, evens)  # sums of 2 are even
    with pytest.raises(heft.InvalidArgument):
        ckks.evaluator.conjugate(cx, evens)
    with pytest.raises(heft.InvalidArgument):
        bfv.evaluator.rotate_columns(integer_encrypt(bfv, [1]),
                                     bfv.keygen.create_galois_keys([1]))
    assert cx.serialize() == before


def test_bad_arrays_are_refused(ckks, bfv):
    with pytest.raises(heft.InvalidArgument):
        ckks.encoder.encode(np.zeros(ckks.encoder.slot_count + 1))
    with pytest.raises(heft.InvalidArgument):
        ckks.encoder.encode(np.zeros((2, 2)))
    with pytest.raises(heft.InvalidArgument):
        ckks.encoder.encode(["a", "b"])
    with pytest.raises(heft.InvalidArgument):
        ckks.encoder.encode([1.0], level=3)
    with pytest.raises(heft.InvalidArgument):
        ckks.encoder.encode([np.nan])
    with pytest.raises(heft.InvalidArgument):
        bfv.encoder.encode(np.zeros(bfv.encoder.slot_count + 1, dtype=np.int64))
    with pytest.raises(heft.InvalidArgument):
        bfv.encoder.encode([0.5])
    with pytest.raises(heft.InvalidArgument):
        bfv.encoder.encode([bfv.t])
    with pytest.raises(heft.InvalidArgument):
        native.BatchEncoder(ckks.context)  # no t
    with pytest.raises(heft.InvalidArgument):
        ckks.encryptor.encrypt(ckks.encoder.encode([1.0]), level=0)


def test_scheme_rules_are_enforced(ckks, bgv):
    x = ckks.rng.uniform(-1, 1, 8)
    cx = ckks_encrypt(ckks, x)
    with pytest.raises(heft.TransparentCiphertextError):
        ckks.evaluator.sub(cx, cx)
    bottom = ckks.evaluator.drop_to_level(cx, 0)
    with pytest.raises(heft.InvalidArgument):
        ckks.evaluator.rescale(bottom)
    # BGV needs keys whose errors are multiples of t.
    plain_keys = native.KeyGenerator(bgv.context, bgv.keygen.secret_key())
    assert plain_keys.error_scale == 1 and bgv.keygen.error_scale == bgv.t
    ca = integer_encrypt(bgv, [3])
    with pytest.raises(heft.MismatchError):
        bgv.evaluator.multiply(ca, ca, plain_keys.create_relin_key())
    # Depth: products until the levels run out.
    product = ca
    with pytest.raises(heft.InvalidArgument):
        for _ in range(bgv.context.level_count + 1):
            product = bgv.evaluator.multiply(product, product, bgv.relin)
    assert np.array_equal(integer_decrypt(bgv, ca)[:1], [3])


# ---- documentation ----

_SIGNATURE = re.compile(r"^(\d+\. )?\w*\((\w+: |\))")


def _text_beyond_signatures(doc):
    """The docstring without pybind11's signature lines."""
    lines = [line for line in (doc or "").splitlines()
             if line.strip() and not _SIGNATURE.match(line.strip())
             and line.strip() != "Overloaded function."]
    return "\n".join(lines).strip()


def test_every_native_name_and_method_has_a_docstring():
    missing = []
    for name in native.__all__:
        obj = getattr(native, name)
        if not _text_beyond_signatures(inspect.getdoc(obj)):
            missing.append(name)
        if not inspect.isclass(obj) or issubclass(obj, Exception) or hasattr(obj, "__members__"):
            continue  # exceptions and enums: their own docstring only
        for member, value in vars(obj).items():
            if member.startswith("_"):
                continue
            if not _text_beyond_signatures(getattr(value, "__doc__", None)):
                missing.append(f"{name}.{member}")
    assert not missing, f"no docstring: {sorted(missing)}"
