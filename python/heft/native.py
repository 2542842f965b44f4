"""heft.native: heft's scheme layer, for control below the TenSEAL-style tensors.

What a SEAL or OpenFHE user expects, on heft's C++ API (include/heft/rlwe, schemes/):

- ``Parameters``: by hand (``Parameters(N, ciphertext_bit_sizes, special_bit_sizes, ...)``,
  or SEAL's convention ``Parameters.ckks / bfv / bgv(N, coeff_mod_bit_sizes, ...)``, the
  last size being the special prime) or from heft's helpers (``Parameters.suggest_ckks``,
  ``suggest_bfv``, ``suggest_bgv``); validated against a ``SecurityLevel``
  (``SecurityLevel.none``: tests only).
- ``Context(parameters)``; ``KeyGenerator(context, bgv=False)`` with ``secret_key()``,
  ``create_public_key()``, ``create_relin_key()``, ``create_galois_keys(steps)``.
- CKKS: ``CKKSEncoder`` (real or complex numpy arrays, a scale and a level),
  ``CKKSEncryptor``, ``CKKSDecryptor``, ``CKKSEvaluator``.
- BFV and BGV: ``BatchEncoder`` (int64 numpy arrays mod t), ``BFVEncryptor`` /
  ``BFVDecryptor`` / ``BFVEvaluator``, ``BGVEncryptor`` / ``BGVDecryptor`` /
  ``BGVEvaluator`` (keys from ``KeyGenerator(context, bgv=True)``).
- ``Ciphertext``, ``Plaintext``, ``IntegerPlaintext`` and the keys ``serialize()`` to
  heft's format and ``load(context, data)``; all but ``SecretKey`` pickle (the pickle
  carries the parameters: unpickled objects attach to the live context of those
  parameters made first in this process, or to a new one).

Objects of one context are refused by another (``MismatchError``), operations check their
operands before writing anything, and heft's errors are the package's (``heft.Error``,
``InvalidArgument``, ...). The work runs with the GIL released. Example: docs/python.md.
"""
from __future__ import annotations

from ._heft import (Error, FormatError, InvalidArgument, MismatchError, NoiseBudgetError,
                    TransparentCiphertextError, UnsupportedError)
from ._heft.native import (BatchEncoder, BFVDecryptor, BFVEncryptor, BFVEvaluator,
                           BGVDecryptor, BGVEncryptor, BGVEvaluator, Ciphertext, CKKSDecryptor,
                           CKKSEncoder, CKKSEncryptor, CKKSEvaluator, Compression, Context,
                           GaloisKeys, IntegerPlaintext, KeyGenerator, ModSwitchMode,
                           Parameters, Plaintext, PublicKey, RelinKey, ScaleMode, SecretKey,
                           SecurityLevel, load_key_set, max_log_qp, serialize_key_set)

__all__ = [
    "BFVDecryptor", "BFVEncryptor", "BFVEvaluator", "BGVDecryptor", "BGVEncryptor",
    "BGVEvaluator", "BatchEncoder", "CKKSDecryptor", "CKKSEncoder", "CKKSEncryptor",
    "CKKSEvaluator", "Ciphertext", "Compression", "Context", "Error", "FormatError",
    "GaloisKeys", "IntegerPlaintext", "InvalidArgument", "KeyGenerator", "MismatchError",
    "ModSwitchMode", "NoiseBudgetError", "Parameters", "Plaintext", "PublicKey", "RelinKey",
    "ScaleMode", "SecretKey", "SecurityLevel", "TransparentCiphertextError",
    "UnsupportedError", "load_key_set", "max_log_qp", "serialize_key_set",
]
