"""Encrypted matrices: products where both operands are encrypted.

TenSEAL multiplies two encrypted matrices element by element (one ciphertext
per entry, n^3 products); heft's CKKSMatrix packs a matrix into b x b blocks of
one ciphertext each and multiplies two of them in three levels (Jiang, Kim,
Lauter and Song's algorithm), and an encrypted vector by one in two
(``vector @ matrix``). Rotations are composed from the Galois keys present;
``CKKSMatrix.galois_steps(context, b)`` lists the keys that make each one a
single key switch.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from . import _heft
from ._context import Context


class CKKSMatrix:
    """An encrypted rows x cols matrix of reals (heft/tensor/ckks_matrix.hpp)."""

    _encrypted_matrix = True  # what CKKSVector.matmul looks for

    def __init__(self, native=None, context: Optional[Context] = None,
                 lazy_bytes: Optional[bytes] = None):
        self.data = native
        self._context = context
        self._lazy = lazy_bytes

    def _native(self):
        if self.data is None:
            raise ValueError("a lazily loaded matrix: call link_context(context) first")
        return self.data

    def _wrap(self, native) -> "CKKSMatrix":
        return CKKSMatrix(native, self._context)

    @staticmethod
    def galois_steps(context: Context, block: int) -> List[int]:
        """The rotation steps products on blocks of `block` use, each a single key switch
        once ``context.generate_galois_keys(steps)`` has made them."""
        return list(_heft.CKKSMatrix.galois_steps(context.data, int(block)))

    @property
    def shape(self) -> tuple:
        """(rows, cols)."""
        native = self._native()
        return (native.rows, native.cols)

    @property
    def block_size(self) -> int:
        """b: the matrix is held in b x b blocks, one ciphertext each."""
        return self._native().block_size

    def level(self) -> int:
        """Levels left for products."""
        return self._native().level()

    def context(self) -> Optional[Context]:
        """The Context this matrix is linked to."""
        return self._context

    def link_context(self, ctx: Context) -> None:
        """Attaches a context (and parses the bytes of a lazily loaded matrix)."""
        self._context = ctx
        if self._lazy is not None:
            self.data = _heft.CKKSMatrix.load(ctx.data, self._lazy)
            self._lazy = None

    def decrypt(self) -> np.ndarray:
        """The matrix as a 2-D numpy array (needs the secret key)."""
        return np.array(self._native().decrypt(), dtype=float)

    def matmul(self, other: "CKKSMatrix") -> "CKKSMatrix":
        """This (n x k) times another encrypted matrix (k x m): three levels; both must be in
        blocks of one size."""
        if not isinstance(other, CKKSMatrix):
            raise TypeError("CKKSMatrix.matmul takes a CKKSMatrix (for a plain matrix, encrypt "
                            "it with ckks_matrix first)")
        return self._wrap(self._native().matmul(other._native()))

    mm = matmul

    def __matmul__(self, other: "CKKSMatrix") -> "CKKSMatrix":
        return self.matmul(other)

    def add(self, other: "CKKSMatrix") -> "CKKSMatrix":
        """The element-wise sum with a matrix of the same shape and blocks."""
        return self._wrap(self._native().add(other._native()))

    def sub(self, other: "CKKSMatrix") -> "CKKSMatrix":
        """The element-wise difference with a matrix of the same shape and blocks."""
        return self._wrap(self._native().sub(other._native()))

    def __add__(self, other: "CKKSMatrix") -> "CKKSMatrix":
        return self.add(other)

    def __sub__(self, other: "CKKSMatrix") -> "CKKSMatrix":
        return self.sub(other)

    def copy(self) -> "CKKSMatrix":
        """A deep copy (its own ciphertexts, the same context)."""
        return self._wrap(self._native().copy())

    def __copy__(self) -> "CKKSMatrix":
        return self.copy()

    def __deepcopy__(self, memo) -> "CKKSMatrix":
        return self.copy()

    def serialize(self) -> bytes:
        """heft's bytes for this matrix (docs/format.md), for ckks_matrix_from."""
        return self._native().serialize()

    # Pickles as its bytes only; unpickled it is lazy until link_context.
    def __getstate__(self) -> dict:
        return {"bytes": self.serialize()}

    def __setstate__(self, state: dict) -> None:
        self.data, self._context, self._lazy = None, None, state["bytes"]


def ckks_matrix(context: Context, matrix, block: Optional[int] = None) -> CKKSMatrix:
    """Encrypts a 2-D matrix (list of rows or numpy array) in b x b blocks (block: b, a power
    of two whose square fits the slots; default the smallest power of two covering the matrix,
    at most that)."""
    rows = np.asarray(matrix, dtype=float)
    if rows.ndim != 2:
        raise ValueError(f"ckks_matrix takes a 2-D matrix, not one of shape {rows.shape}")
    native = _heft.CKKSMatrix.encrypt(context.data, rows.tolist(), int(block or 0))
    return CKKSMatrix(native, context)


def ckks_matrix_from(context: Context, data: bytes) -> CKKSMatrix:
    """A CKKSMatrix from CKKSMatrix.serialize's bytes."""
    return CKKSMatrix(_heft.CKKSMatrix.load(context.data, data), context)


def lazy_ckks_matrix_from(data: bytes) -> CKKSMatrix:
    """A CKKSMatrix whose bytes are parsed at link_context(context)."""
    return CKKSMatrix(None, None, data)
