"""heft: homomorphic encryption (CKKS, BFV) for Python, with TenSEAL's API.

`import heft as ts` runs programs written for TenSEAL 0.3: contexts, CKKS and
BFV vectors, CKKS tensors, plain tensors, im2col encoding, serialization.
Beyond TenSEAL: bootstrapping (bootstrappable_context, CKKSVector.bootstrap /
refresh_for), linear transforms by diagonals, BFV tensors, rotations, encrypted
matrices (ckks_matrix: encrypted x encrypted products), and heft.native: the scheme layer
below (parameters, keys, encoders, encryptors, evaluators of CKKS, BFV and BGV).
Where TenSEAL has a known bug heft does the right thing instead (see
docs/tenseal-compatibility.md); what heft does not have yet raises
NotImplementedError naming it.
"""
from ._heft import (Error, FormatError, InvalidArgument, MismatchError, NoiseBudgetError,
                    TransparentCiphertextError, UnsupportedError)
from ._context import (ENCRYPTION_TYPE, SCHEME_TYPE, Context, SecretKey, bootstrap_presets,
                       bootstrappable_context, context, context_from,
                       release_idle_memory)
from ._vectors import (BFVVector, CKKSVector, LinearTransform, bfv_vector, bfv_vector_from,
                       ckks_vector, ckks_vector_from, enc_matmul_encoding, im2col_encoding,
                       lazy_bfv_vector_from, lazy_ckks_vector_from)
from ._matrices import CKKSMatrix, ckks_matrix, ckks_matrix_from, lazy_ckks_matrix_from
from ._tensors import (BFVTensor, CKKSTensor, PlainTensor, SignApproximation, bfv_tensor,
                       bfv_tensor_from, ckks_tensor, ckks_tensor_from, lazy_bfv_tensor_from,
                       lazy_ckks_tensor_from, plain_tensor, plain_tensor_from)
from . import native

__all__ = [
    "BFVTensor", "BFVVector", "CKKSMatrix", "CKKSTensor", "CKKSVector", "Context",
    "ENCRYPTION_TYPE", "Error", "FormatError", "InvalidArgument", "LinearTransform",
    "MismatchError", "NoiseBudgetError", "PlainTensor", "SCHEME_TYPE", "SecretKey",
    "SignApproximation", "TransparentCiphertextError", "UnsupportedError", "bfv_tensor",
    "bfv_tensor_from", "bfv_vector", "bfv_vector_from", "bootstrap_presets",
    "bootstrappable_context", "ckks_matrix", "ckks_matrix_from", "ckks_tensor",
    "ckks_tensor_from", "ckks_vector", "ckks_vector_from", "context", "context_from",
    "enc_matmul_encoding", "im2col_encoding", "lazy_bfv_tensor_from", "lazy_bfv_vector_from",
    "lazy_ckks_matrix_from", "lazy_ckks_tensor_from", "lazy_ckks_vector_from", "native",
    "plain_tensor", "plain_tensor_from", "release_idle_memory",
]
