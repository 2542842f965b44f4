"""Bootstrapping and linear transforms from Python (heft beyond TenSEAL), on the
insecure N = 2^12 test presets: keys with progress, fresh encryptions at the
encryption level, bootstrap / refresh_for against numpy, a public context
carrying the keys to a server, LinearTransform against numpy's rolls, errors."""
import numpy as np
import pytest

import heft as ts

TOLERANCE = 2.0 ** -14  # below the small presets' measured precision (22-24 bits)


@pytest.fixture(scope="module")
def context():
    ctx = ts.bootstrappable_context("small-encaps")
    calls = []
    ctx.generate_bootstrap_keys(progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1]  # counted to the end
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    return ctx


def uniform(n, seed):
    return np.random.default_rng(seed).uniform(-1, 1, n)


def test_presets_and_levels(context):
    assert set(ts.bootstrap_presets()) >= {"n16-encaps", "n16", "small-encaps", "small"}
    assert context.is_bootstrappable() and context.has_bootstrap_keys()
    x = uniform(100, 1)
    v = ts.ckks_vector(context, x)
    assert v.level() == context.encryption_level
    assert np.max(np.abs(np.array(v.decrypt()) - x)) < 1e-6


def test_bootstrap_refreshes_a_vector_at_level_zero(context):
    x = uniform(2048, 2)
    v, want = ts.ckks_vector(context, x), x.copy()
    while v.level() > 0:
        v, want = v.square(), want * want
    refreshed = v.bootstrap()
    assert refreshed.level() == context.encryption_level
    assert np.max(np.abs(np.array(refreshed.decrypt()) - want)) < TOLERANCE
    v.bootstrap_()
    assert np.max(np.abs(np.array(v.decrypt()) - want)) < TOLERANCE


def test_refresh_for_bootstraps_only_when_needed(context):
    x = uniform(64, 3)
    v = ts.ckks_vector(context, x)
    top = context.encryption_level
    assert v.refresh_for(top).level() == top
    low = v * 0.5
    assert low.level() < top
    refreshed = low.refresh_for(top)
    assert refreshed.level() == top
    assert np.max(np.abs(np.array(refreshed.decrypt()) - 0.5 * x)) < TOLERANCE
    with pytest.raises(ValueError, match="bootstrapping gives back"):
        v.refresh_for(top + 1)


def test_public_context_carries_the_keys_to_a_server(context):
    public = context.serialize(save_secret_key=False)
    with pytest.raises(ValueError):  # insecure parameters need the explicit flag
        ts.context_from(public)
    server = ts.context_from(public, allow_insecure_parameters=True)
    assert server.is_public() and server.has_bootstrap_keys()
    x = uniform(1000, 4)
    request = ts.ckks_vector(context, x).serialize()
    at_server = ts.ckks_vector_from(server, request)
    with pytest.raises(ValueError):
        at_server.decrypt()
    answer = at_server.square().bootstrap().serialize()
    back = np.array(ts.ckks_vector_from(context, answer).decrypt())
    assert np.max(np.abs(back - x * x)) < TOLERANCE


def test_bootstrap_errors_leave_the_vector_unchanged():
    ctx = ts.bootstrappable_context("small")
    x = uniform(16, 5)
    v = ts.ckks_vector(ctx, x)
    with pytest.raises(ValueError, match="generate_bootstrap_keys"):
        v.bootstrap()
    assert np.max(np.abs(np.array(v.decrypt()) - x)) < 1e-6
    plain = ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[60, 40, 40, 60])
    plain.global_scale = 2 ** 40
    w = ts.ckks_vector(plain, x)
    with pytest.raises(ValueError, match="cannot bootstrap"):
        w.bootstrap()
    with pytest.raises(ValueError):
        ts.bootstrappable_context("no-such-preset")
    with pytest.raises(ValueError):
        ts.bootstrappable_context("small", order="sideways")


def test_linear_transform_matches_numpy(context):
    n = context.data.slot_count
    x = uniform(n, 6)
    rng = np.random.default_rng(7)
    diagonals = {k: rng.uniform(-1, 1, n) for k in (0, 1, 3, 64, 67, 700)}
    transform = ts.LinearTransform(context, diagonals, context.encryption_level, baby_steps=64)
    assert transform.diagonal_count == len(diagonals)
    assert set(transform.rotation_steps()) == {1, 3, 60, 64, 640}  # 700 = 640 + 60
    want = sum(d * np.roll(x, -k) for k, d in diagonals.items())
    v = ts.ckks_vector(context, x)
    bare = ts.bootstrappable_context("small")
    u = ts.ckks_vector(bare, x)
    with pytest.raises(ValueError):  # a transform of another context
        u.linear_transform(ts.LinearTransform(context, diagonals, 1))
    keyless = ts.LinearTransform(bare, diagonals, bare.encryption_level, baby_steps=64)
    with pytest.raises(ValueError):  # no Galois keys for its steps
        u.linear_transform(keyless)
    context.generate_galois_keys(transform.rotation_steps(), max_level=context.encryption_level)
    y = v.linear_transform(transform)
    assert y.level() == v.level() - 1
    assert np.max(np.abs(np.array(y.decrypt()) - want)) < 1e-5


def test_a_batched_tensor_bootstraps_each_element(context):
    slots = 2048
    x = np.random.default_rng(11).uniform(-1, 1, (slots, 3))
    t = ts.ckks_tensor(context, x, batch=True)
    assert t.level() == context.encryption_level
    low = t * 0.5 * 2.0
    assert low.level() < context.encryption_level
    for refreshed in (low.bootstrap(), low.refresh_for(context.encryption_level)):
        assert refreshed.level() == context.encryption_level
        assert np.max(np.abs(refreshed.decrypt().numpy() - x)) < TOLERANCE
    # Rotations of the batch after bootstrapping, as the deep demo's throughput mode does.
    assert np.max(np.abs(low.bootstrap().rotate(3).decrypt().numpy()
                         - np.roll(x, -3, axis=0))) < TOLERANCE
    with pytest.raises(ValueError, match="bootstrapping gives back"):
        t.refresh_for(context.encryption_level + 1)


def test_auto_bootstrap_gives_unbounded_depth(context):
    x = uniform(512, 12)
    signs = np.where(np.arange(512) % 3 == 0, -1.0, 1.0)
    v, want = ts.ckks_vector(context, x), x.copy()
    steps = 2 * context.encryption_level + 1
    for _ in range(context.encryption_level):
        v, want = v * signs, want * signs
    with pytest.raises(ValueError, match="level"):
        v * signs
    context.auto_bootstrap = True
    try:
        for _ in range(steps):
            v, want = v * signs, want * signs
        assert np.max(np.abs(np.array(v.decrypt()) - want)) < 4 * TOLERANCE
        t = ts.ckks_tensor(context, np.stack([x, -x], axis=1).repeat(4, axis=0), batch=True)
        for _ in range(steps):
            t = t.square().polyval([0.0, 0.5, 0.5])  # stays within [-1, 1]
        plain = np.stack([x, -x], axis=1).repeat(4, axis=0)
        for _ in range(steps):
            plain = 0.5 * plain ** 2 + 0.5 * plain ** 4
        assert np.max(np.abs(t.decrypt().numpy() - plain)) < 16 * TOLERANCE
    finally:
        context.auto_bootstrap = False
    with pytest.raises(ValueError, match="cannot bootstrap"):
        plain_context = ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[60, 40, 60])
        plain_context.auto_bootstrap = True
