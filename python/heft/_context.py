"""TenSEAL's context API over heft's TensorContext."""
from __future__ import annotations

import enum
from typing import Callable, Dict, Iterable, List, NoReturn, Optional, Sequence, Union

# What bytes(...) takes: serialized objects may come as bytes, bytearray or memoryview.
BytesLike = Union[bytes, bytearray, memoryview]

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

    def __init__(self, native: _heft.SecretKey) -> None:
        self.data = native

    def __getstate__(self) -> NoReturn:
        raise TypeError("a secret key does not pickle (it must not leave the client)")


class Context:
    """Parameters and keys; shared by the vectors and tensors made under it."""

    def __init__(self, native: _heft.TensorContext) -> None:
        self.data = native  # TenSEAL names its native object `data`

    # ---- scale and flags ----
    @property
    def global_scale(self) -> float:
        """The scale fresh CKKS encryptions use (settable, as TenSEAL's)."""
        return self.data.global_scale

    @global_scale.setter
    def global_scale(self, value: float) -> None:
        self.data.global_scale = float(value)

    @property
    def auto_relin(self) -> bool:
        """Relinearize after each product (TenSEAL's flag; default on)."""
        return self.data.auto_relin

    @auto_relin.setter
    def auto_relin(self, value: bool) -> None:
        self.data.auto_relin = bool(value)

    @property
    def auto_rescale(self) -> bool:
        """Rescale after each product (TenSEAL's flag; default on)."""
        return self.data.auto_rescale

    @auto_rescale.setter
    def auto_rescale(self, value: bool) -> None:
        self.data.auto_rescale = bool(value)

    @property
    def auto_mod_switch(self) -> bool:
        """Bring operands to a common level automatically (TenSEAL's flag; default on)."""
        return self.data.auto_mod_switch

    @auto_mod_switch.setter
    def auto_mod_switch(self, value: bool) -> None:
        self.data.auto_mod_switch = bool(value)

    @property
    def auto_bootstrap(self) -> bool:
        """Bootstrap an operand whose levels run out before the operation that needs them
        (bootstrappable contexts; off by default): unbounded depth, for values kept within
        about [-1, 1] as bootstrapping needs. A runtime setting, not serialized."""
        return self.data.auto_bootstrap

    @auto_bootstrap.setter
    def auto_bootstrap(self, value: bool) -> None:
        self.data.auto_bootstrap = bool(value)

    # ---- keys ----
    def generate_galois_keys(self, steps: Optional[Iterable[int]] = None,
                             max_level: Optional[int] = None) -> None:
        """The default power-of-two steps (TenSEAL's default), or exactly `steps`; with
        `max_level`, keys only for ciphertexts at that level or below (smaller: at
        N = 2^16 a key for the encryption level of a bootstrappable context is a third of
        a full one)."""
        if steps is None and max_level is None:
            self.data.generate_galois_keys()
        else:
            steps = self.default_galois_steps() if steps is None else steps
            self.data.generate_galois_keys_for([int(s) for s in steps], False,
                                               None if max_level is None else int(max_level))

    def default_galois_steps(self) -> List[int]:
        """+-2^i below the row length: the steps generate_galois_keys() covers."""
        steps, step = [], 1
        while step < self.data.slot_count:
            steps += [step, -step]
            step *= 2
        return steps

    # ---- bootstrapping (bootstrappable_context) ----
    def is_bootstrappable(self) -> bool:
        """True for a bootstrappable_context."""
        return self.data.is_bootstrappable()

    def has_bootstrap_keys(self) -> bool:
        """True once generate_bootstrap_keys has run (or the keys were loaded)."""
        return self.data.has_bootstrap_keys()

    @property
    def encryption_level(self) -> int:
        """The level fresh encryptions start at: the top, or for a bootstrappable
        context the level bootstrapping gives back (the levels above are its own)."""
        return self.data.encryption_level

    def bootstrap_key_bytes(self) -> int:
        """The bytes generate_bootstrap_keys() will make, from the keys' shapes."""
        return self.data.bootstrap_key_bytes()

    def generate_bootstrap_keys(self,
                                progress: Union[bool, Callable[[int, int], None]] = True
                                ) -> None:
        """Makes the keys bootstrapping needs (at N = 2^16: about 80 keys, 7.5 GiB, tens
        of seconds). `progress`: a callable progress(done, total), True for a tqdm bar
        (when python3-tqdm is installed), False for nothing."""
        callback, bar = None, None
        if callable(progress):
            callback = progress
        elif progress:
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                def callback(done: int, total: int) -> None:
                    nonlocal bar
                    if bar is None:
                        bar = tqdm(total=total, desc="bootstrapping keys", unit="key",
                                   leave=False)
                    bar.update(done - bar.n)
        try:
            self.data.generate_bootstrap_keys(callback)
        finally:
            if bar is not None:
                bar.close()

    def generate_relin_keys(self) -> None:
        """Makes the relinearization key (contexts have one from the start)."""
        self.data.generate_relin_keys()

    def make_context_public(self, generate_galois_keys: bool = False,
                            generate_relin_keys: bool = False) -> None:
        """Drops the secret key (and makes Galois / relinearization keys first when asked), as
        TenSEAL's."""
        self.data.make_context_public(generate_galois_keys, generate_relin_keys)

    def is_private(self) -> bool:
        """True when the context holds the secret key."""
        return self.data.is_private()

    def is_public(self) -> bool:
        """True when it does not."""
        return self.data.is_public()

    def has_secret_key(self) -> bool:
        """True when the context holds the secret key."""
        return self.data.is_private()

    def secret_key(self) -> SecretKey:
        """The secret key (raises on a public context), for decrypt(secret_key)."""
        return SecretKey(self.data.secret_key())

    def has_public_key(self) -> bool:
        """True when it holds the public key."""
        return self.data.has_public_key()

    def has_relin_keys(self) -> bool:
        """True when it holds the relinearization key."""
        return self.data.has_relin_keys()

    def has_galois_keys(self) -> bool:
        """True when it holds Galois keys."""
        return self.data.has_galois_keys()

    # ---- noise flooding of decryptions (docs/security.md) ----
    def set_noise_flooding(self, noise_bits: float, statistical_security: int = 30,
                           decryptions: int = 1) -> None:
        """Flood every CKKS decryption under this context so that results may be shared
        with the party that computed them. `noise_bits`: log2 of the results' noise bound,
        from an estimation run (CKKSVector.measure_noise_bits on sample inputs). Off by
        default; not serialized."""
        self.data.set_noise_flooding(float(noise_bits), int(statistical_security),
                                     int(decryptions))

    def clear_noise_flooding(self) -> None:
        """Turns noise flooding off."""
        self.data.clear_noise_flooding()

    def noise_flooding(self) -> Optional[Dict[str, float]]:
        """None, or the flooding options with the flooding noise's log2 deviation."""
        return self.data.noise_flooding()

    # ---- copies and bytes ----
    def copy(self) -> Context:
        """An independent copy of the context and its keys."""
        return Context(_heft.TensorContext.load(self.serialize(), False))

    def serialize(self, save_public_key: bool = True, save_secret_key: bool = True,
                  save_galois_keys: bool = True, save_relin_keys: bool = True,
                  save_bootstrap_keys: bool = True) -> bytes:
        """The context's bytes with the parts asked for (heft's format);
        save_bootstrap_keys: a bootstrappable context's settings and sparse-secret keys
        (its rotation keys are among the Galois keys)."""
        return self.data.serialize(save_public_key, save_secret_key, save_galois_keys,
                                   save_relin_keys, save_bootstrap_keys)

    def __getstate__(self) -> bytes:
        return self.serialize()

    def __setstate__(self, state: bytes) -> None:
        self.data = _heft.TensorContext.load(state, False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and self.data is other.data

    def __hash__(self) -> int:
        return id(self.data)


def context(scheme: Union[SCHEME_TYPE, str], poly_modulus_degree: int,
            plain_modulus: Optional[int] = None,
            coeff_mod_bit_sizes: Optional[Sequence[int]] = None,
            encryption_type: ENCRYPTION_TYPE = ENCRYPTION_TYPE.ASYMMETRIC,
            n_threads: Optional[int] = None) -> Context:
    """TenSEAL's ts.context: a private context with public and relinearization keys."""
    if isinstance(scheme, str):
        scheme = SCHEME_TYPE(scheme.lower())
    native_scheme = _heft.Scheme.CKKS if scheme == SCHEME_TYPE.CKKS else _heft.Scheme.BFV
    if scheme == SCHEME_TYPE.BFV and not plain_modulus:
        raise ValueError("a BFV context needs plain_modulus")
    # CKKS has no plain modulus: TenSEAL's programs pass -1 or None for it.
    plain = int(plain_modulus) if scheme == SCHEME_TYPE.BFV else 0
    native = _heft.TensorContext.create(native_scheme, int(poly_modulus_degree), plain,
                                        [int(b) for b in (coeff_mod_bit_sizes or [])], 0.0,
                                        int(n_threads or 0))
    return Context(native)


def context_from(data: BytesLike, n_threads: Optional[int] = None,
                 allow_insecure_parameters: bool = False) -> Context:
    """A context loaded from Context.serialize()'s bytes. Parameters below 128-bit
    security (heft's test presets) load only with allow_insecure_parameters."""
    del n_threads  # heft's thread count is process-wide (HEFT_NUM_THREADS)
    if not isinstance(data, bytes):
        data = bytes(data)
    return Context(_heft.TensorContext.load(data, bool(allow_insecure_parameters)))


def bootstrap_presets() -> List[str]:
    """The names bootstrappable_context takes."""
    return list(_heft.bootstrap_preset_names())


def bootstrappable_context(preset: str = "n16-encaps", order: str = "coeffs_to_slots_first",
                           real_slots: bool = True, n_threads: Optional[int] = None) -> Context:
    """A private CKKS context on a bootstrapping preset (heft beyond TenSEAL): its
    parameters, public and relinearization keys; generate_bootstrap_keys() makes the rest.
    Presets: "n16-encaps" (N = 2^16, 128-bit, sparse-secret encapsulation, 8 levels at
    scale >= 2^40 between bootstraps), "n16" (dense secret), "small-encaps" and "small"
    (N = 2^12, NOT secure: tests). order: "coeffs_to_slots_first" or
    "slots_to_coeffs_first". real_slots: bootstrap real values only (half EvalMod's work;
    imaginary parts come back as zero). Fresh encryptions start at encryption_level."""
    if order not in ("coeffs_to_slots_first", "slots_to_coeffs_first"):
        raise ValueError("order is 'coeffs_to_slots_first' or 'slots_to_coeffs_first'")
    native = _heft.TensorContext.create_bootstrappable(
        str(preset), order == "slots_to_coeffs_first", bool(real_slots), int(n_threads or 0))
    return Context(native)


def release_idle_memory() -> int:
    """Gives memory heft keeps for reuse (freed polynomials) back to the system, and
    returns how many bytes: between two large computations, such as a bootstrapping
    context after smaller ones, so that the second does not pay for the first."""
    return _heft.release_idle_memory()
