"""TenSEAL's context API over heft's TensorContext."""
import enum

from . import _heft


class SCHEME_TYPE(enum.Enum):
    CKKS = "ckks"
    BFV = "bfv"


class ENCRYPTION_TYPE(enum.Enum):
    ASYMMETRIC = "asymmetric"
    SYMMETRIC = "symmetric"


class SecretKey:
    """A context's secret key kept aside (TenSEAL's context.secret_key()): decrypt(sk)
    still works after make_context_public(). Not picklable: it never travels."""

    def __init__(self, native):
        self.data = native

    def __getstate__(self):
        raise TypeError("a secret key does not pickle (it must not leave the client)")


class Context:
    """Parameters and keys; shared by the vectors and tensors made under it."""

    def __init__(self, native):
        self.data = native  # TenSEAL names its native object `data`

    # ---- scale and flags ----
    @property
    def global_scale(self):
        return self.data.global_scale

    @global_scale.setter
    def global_scale(self, value):
        self.data.global_scale = float(value)

    @property
    def auto_relin(self):
        return self.data.auto_relin

    @auto_relin.setter
    def auto_relin(self, value):
        self.data.auto_relin = bool(value)

    @property
    def auto_rescale(self):
        return self.data.auto_rescale

    @auto_rescale.setter
    def auto_rescale(self, value):
        self.data.auto_rescale = bool(value)

    @property
    def auto_mod_switch(self):
        return self.data.auto_mod_switch

    @auto_mod_switch.setter
    def auto_mod_switch(self, value):
        self.data.auto_mod_switch = bool(value)

    # ---- keys ----
    def generate_galois_keys(self, steps=None):
        """The default power-of-two steps (TenSEAL's default), or exactly `steps`."""
        if steps is None:
            self.data.generate_galois_keys()
        else:
            self.data.generate_galois_keys_for([int(s) for s in steps], False)

    def generate_relin_keys(self):
        self.data.generate_relin_keys()

    def make_context_public(self, generate_galois_keys=False, generate_relin_keys=False):
        self.data.make_context_public(generate_galois_keys, generate_relin_keys)

    def is_private(self):
        return self.data.is_private()

    def is_public(self):
        return self.data.is_public()

    def has_secret_key(self):
        return self.data.is_private()

    def secret_key(self):
        """The secret key (raises on a public context), for decrypt(secret_key)."""
        return SecretKey(self.data.secret_key())

    def has_public_key(self):
        return self.data.has_public_key()

    def has_relin_keys(self):
        return self.data.has_relin_keys()

    def has_galois_keys(self):
        return self.data.has_galois_keys()

    # ---- noise flooding of decryptions (docs/security.md) ----
    def set_noise_flooding(self, noise_bits, statistical_security=30, decryptions=1):
        """Flood every CKKS decryption under this context so that results may be shared
        with the party that computed them. `noise_bits`: log2 of the results' noise bound,
        from an estimation run (CKKSVector.measure_noise_bits on sample inputs). Off by
        default; not serialized."""
        self.data.set_noise_flooding(float(noise_bits), int(statistical_security),
                                     int(decryptions))

    def clear_noise_flooding(self):
        self.data.clear_noise_flooding()

    def noise_flooding(self):
        """None, or the flooding options with the flooding noise's log2 deviation."""
        return self.data.noise_flooding()

    # ---- copies and bytes ----
    def copy(self):
        return Context(_heft.TensorContext.load(self.serialize(), False))

    def serialize(self, save_public_key=True, save_secret_key=True, save_galois_keys=True,
                  save_relin_keys=True):
        return self.data.serialize(save_public_key, save_secret_key, save_galois_keys,
                                   save_relin_keys)

    def __getstate__(self):
        return self.serialize()

    def __setstate__(self, state):
        self.data = _heft.TensorContext.load(state, False)

    def __eq__(self, other):
        return isinstance(other, Context) and self.data is other.data

    def __hash__(self):
        return id(self.data)


def context(scheme, poly_modulus_degree, plain_modulus=None, coeff_mod_bit_sizes=None,
            encryption_type=ENCRYPTION_TYPE.ASYMMETRIC, n_threads=None):
    """TenSEAL's ts.context: a private context with public and relinearization keys."""
    if isinstance(scheme, str):
        scheme = SCHEME_TYPE(scheme.lower())
    native_scheme = _heft.Scheme.CKKS if scheme == SCHEME_TYPE.CKKS else _heft.Scheme.BFV
    if scheme == SCHEME_TYPE.BFV and not plain_modulus:
        raise ValueError("a BFV context needs plain_modulus")
    native = _heft.TensorContext.create(native_scheme, int(poly_modulus_degree),
                                        int(plain_modulus or 0),
                                        [int(b) for b in (coeff_mod_bit_sizes or [])], 0.0,
                                        int(n_threads or 0))
    return Context(native)


def context_from(data, n_threads=None):
    """A context loaded from Context.serialize()'s bytes."""
    del n_threads  # heft's thread count is process-wide (HEFT_NUM_THREADS)
    return Context(_heft.TensorContext.load(bytes(data), False))
