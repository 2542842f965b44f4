"""Shared fixtures: TenSEAL's usual contexts (N = 8192, 128-bit secure)."""
import pytest

import heft as ts


@pytest.fixture(scope="session")
def ckks_context():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, poly_modulus_degree=8192,
                     coeff_mod_bit_sizes=[60, 40, 40, 60])
    ctx.global_scale = 2 ** 40
    ctx.generate_galois_keys()
    return ctx


@pytest.fixture(scope="session")
def bfv_context():
    ctx = ts.context(ts.SCHEME_TYPE.BFV, poly_modulus_degree=8192, plain_modulus=1032193)
    ctx.generate_galois_keys()
    return ctx
