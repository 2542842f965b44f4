"""TenSEAL's CKKSVector and BFVVector over heft's C++ vectors."""
from __future__ import annotations

import numbers

import numpy as np
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple,
                    TypeVar, Union)

from . import _heft
from ._context import BytesLike, Context, SecretKey
from ._encrypted import Encrypted

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ._encrypted import Operand
    from ._matrices import CKKSMatrix

_N = TypeVar("_N", float, int)
# A vector's own type, for the methods CKKSVector and BFVVector share.
_V = TypeVar("_V", bound="_Vector")


def _flat_list(values: ArrayLike, kind: Callable[[Any], _N]) -> List[_N]:
    """A flat list of `kind` from a list, tuple, numpy array or torch tensor."""
    if hasattr(values, "tolist"):
        values = values.tolist()
    if isinstance(values, numbers.Number):
        return [kind(values)]
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_flat_list(v, kind))
        else:
            out.append(kind(v))
    return out


def _matrix(values: ArrayLike, kind: Callable[[Any], _N]) -> List[List[_N]]:
    if hasattr(values, "tolist"):
        values = values.tolist()
    return [[kind(v) for v in row] for row in values]


class _Vector(Encrypted):
    """What CKKSVector and BFVVector share: TenSEAL's methods and operators."""

    _kind = float

    def _wrap(self: _V, native: Any) -> _V:
        return type(self)(native, self._context)

    def _operand(self, other: Operand) -> Any:
        if isinstance(other, type(self)):
            return other._native()
        if isinstance(other, numbers.Number):
            return self._kind(other)
        if isinstance(other, np.ndarray) and other.ndim >= 1:
            # Read in place by the native layer (no list of Python numbers).
            dtype = np.float64 if self._kind is float else np.int64
            return np.ascontiguousarray(other, dtype=dtype).ravel()
        return _flat_list(other, self._kind)

    def size(self) -> int:
        """The number of values (TenSEAL's size(); len() too)."""
        return self._native().size()

    def __len__(self) -> int:
        return self.size()

    @property
    def shape(self) -> List[int]:
        """[size()], as TenSEAL's vectors report it."""
        return [self.size()]

    def decrypt(self, secret_key: Optional[SecretKey] = None) -> list:
        """The values; with `secret_key` (context.secret_key(), kept aside before
        make_context_public()), also under a public context."""
        native = self._native()
        if secret_key is None:
            return list(native.decrypt())
        return list(native.decrypt_with(secret_key.data))

    def serialize(self) -> bytes:
        """heft's bytes for this vector (docs/format.md), for ckks_vector_from / bfv_vector_from."""
        return self._native().serialize()

    # Pickling carries the vector's bytes only, not its context (a context
    # with its keys is megabytes): an unpickled vector is lazy, as
    # lazy_ckks_vector_from's, until link_context(context).
    def __getstate__(self) -> Dict[str, bytes]:
        return {"bytes": self.serialize()}

    def __setstate__(self, state: Dict[str, bytes]) -> None:
        self.data, self._context, self._lazy = None, None, state["bytes"]

    # ---- arithmetic: new vectors, in place (`_`), operators ----
    def add_(self: _V, other: Operand) -> _V:
        """Adds in place; returns self."""
        self._native().add_(self._operand(other))
        return self

    def sub_(self: _V, other: Operand) -> _V:
        """Subtracts in place; returns self."""
        self._native().sub_(self._operand(other))
        return self

    def mul_(self: _V, other: Operand) -> _V:
        """Multiplies in place; returns self."""
        self._native().mul_(self._operand(other))
        return self

    def pow(self: _V, power: int) -> _V:
        """The element-wise power by a non-negative integer (ceil(log2) levels)."""
        if int(power) != power or power < 0:
            raise ValueError("pow takes a non-negative integer exponent")
        return self._wrap(self._native().pow(int(power)))

    def pow_(self: _V, power: int) -> _V:
        """Raises to a power in place; returns self."""
        self.data = self.pow(power).data
        return self

    def sum(self: _V, axis: int = 0) -> _V:
        """The sum of the values, in every slot of a one-value vector (rotations by powers of two).
        """
        if axis != 0:
            raise ValueError("a vector has only axis 0")
        return self._wrap(self._native().sum())

    def sum_(self: _V, axis: int = 0) -> _V:
        """Sums in place; returns self."""
        self.data = self.sum(axis).data
        return self

    def dot(self: _V, other: Operand) -> _V:
        """The dot product with a vector of the same kind or a plain list/array (one value)."""
        return self._wrap(self._native().dot(self._operand(other)))

    def dot_(self: _V, other: Operand) -> _V:
        """The dot product in place; returns self."""
        self.data = self.dot(other).data
        return self

    def polyval(self: _V, coefficients: ArrayLike) -> _V:
        """sum_k coefficients[k] x^k element-wise, lowest degree first (TenSEAL's polyval)."""
        return self._wrap(self._native().polyval(_flat_list(coefficients, self._kind)))

    def polyval_(self: _V, coefficients: ArrayLike) -> _V:
        """Evaluates the polynomial in place; returns self."""
        self.data = self.polyval(coefficients).data
        return self

    def matmul(self: _V, matrix: Union[ArrayLike, "CKKSMatrix"]) -> _V:
        """This vector times a plain matrix (vector @ matrix, rows = len(self)): hoisted diagonals,
        one level; or times an encrypted CKKSMatrix (ckks_matrix): two levels."""
        if getattr(matrix, "_encrypted_matrix", False):
            return self._wrap(self._native().matmul_encrypted(matrix._native()))
        return self._wrap(self._native().matmul(_matrix(matrix, self._kind)))

    def matmul_(self: _V, matrix: ArrayLike) -> _V:
        """The vector-matrix product in place; returns self."""
        self.data = self.matmul(matrix).data
        return self

    mm = matmul
    mm_ = matmul_


class CKKSVector(_Vector):
    _native_type = _heft.CKKSVector
    _kind = float

    def __init__(self, context: Union[Context, _heft.CKKSVector, None] = None,
                 vector: Union[ArrayLike, Context, None] = None, scale: Optional[float] = None,
                 native: Optional[_heft.CKKSVector] = None,
                 lazy_bytes: Optional[bytes] = None) -> None:
        if isinstance(context, Context) and vector is not None:
            values = (np.ascontiguousarray(vector, dtype=np.float64).ravel()
                      if isinstance(vector, np.ndarray) else _flat_list(vector, float))
            if len(values) == 0:
                raise ValueError("Attempting to encrypt an empty vector")
            native = _heft.CKKSVector.encrypt(context.data, values, float(scale or 0.0))
        elif context is not None and not isinstance(context, Context):
            native, context = context, vector  # internal: (native, context)
        super().__init__(native, context, lazy_bytes)

    def _wrap(self, native: _heft.CKKSVector) -> CKKSVector:
        return CKKSVector(native, self._context)

    def scale(self) -> float:
        """The ciphertext's scale (2^bits)."""
        return self._native().scale()

    def measure_noise_bits(self, expected: ArrayLike) -> float:
        """Estimation run of noise flooding: log2 of this result's noise, given the exact
        result `expected` of the same computation in plain (Context.set_noise_flooding)."""
        return self._native().measure_noise_bits(_flat_list(expected, float))

    def conv2d_im2col(self, kernel: ArrayLike, windows_nb: int) -> CKKSVector:
        """TenSEAL's conv2d_im2col: this im2col encoding convolved by one kernel, one value per
        window."""
        return self._wrap(self._native().conv2d_im2col(_matrix(kernel, float), int(windows_nb)))

    def conv2d_im2col_(self, kernel: ArrayLike, windows_nb: int) -> CKKSVector:
        """conv2d_im2col in place; returns self."""
        self.data = self.conv2d_im2col(kernel, windows_nb).data
        return self

    def level(self) -> int:
        """Levels left (each product by a value or a ciphertext spends one)."""
        return self._native().level()

    def bootstrap(self) -> CKKSVector:
        """Refreshed by bootstrapping (a bootstrappable_context with its keys): the same
        values within the bootstrap's precision, at the context's encryption level.
        Values should be at most about 1 in absolute value."""
        return self._wrap(self._native().bootstrap())

    def bootstrap_(self) -> CKKSVector:
        """Bootstraps in place; returns self."""
        self.data = self.bootstrap().data
        return self

    def refresh_for(self, levels: int) -> CKKSVector:
        """Bootstrapped only when fewer than `levels` levels are left: call it before an
        operation that needs `levels`, and depth is unbounded."""
        return self._wrap(self._native().refresh_for(int(levels)))

    def linear_transform(self, transform: LinearTransform) -> CKKSVector:
        """M x for a LinearTransform of this context (one level; its rotation keys)."""
        return self._wrap(self._native().linear_transform(transform.data))

    def rotate(self, steps: int) -> CKKSVector:
        """The values rotated left by `steps` (negative: right), cyclically over the
        vector's own size, as numpy.roll(values, -steps); the data stays encrypted.
        Needs Galois keys for the slot steps involved (generate_galois_keys() has them)
        and one level, unless the vector fills its ciphertexts exactly."""
        return self._wrap(self._native().rotate(int(steps)))

    def rotate_(self, steps: int) -> CKKSVector:
        """Rotates in place; returns self."""
        self.data = self.rotate(steps).data
        return self

    def __getitem__(self, index: Union[int, slice]) -> CKKSVector:
        """v[i] (a 1-sized vector) or v[begin:end] (step 1): the values stay encrypted;
        one level unless nothing moves within whole ciphertexts."""
        size = self.size()
        if isinstance(index, slice):
            begin, end, step = index.indices(size)
            if step != 1:
                raise ValueError("CKKSVector slices take step 1")
            return self._wrap(self._native().slice(begin, end))
        if isinstance(index, numbers.Integral):
            i = int(index) + size if index < 0 else int(index)
            if not 0 <= i < size:
                raise IndexError(f"index {index} is out of range for {size} values")
            return self._wrap(self._native().slice(i, i + 1))
        raise TypeError("CKKSVector indices are integers or slices")

    def enc_matmul_plain(self, plain_vec: ArrayLike, n_rows: int) -> CKKSVector:
        """This vector, made by enc_matmul_encoding from a [n_rows, len(plain_vec)] matrix,
        times the plain vector: the n_rows values matrix @ plain_vec. One level (the
        product); rotations by the padded row count times 1, 2, 4, ... (the result's padding
        slots are not zero; sum and dot mask them)."""
        values = _flat_list(plain_vec, float)
        rows, cols = int(n_rows), len(values)
        padded_rows, padded_cols = _power_of_two(rows), _power_of_two(cols)
        size = self.size()
        if rows < 1 or not values or padded_rows * padded_cols > size:
            raise ValueError(f"enc_matmul_plain: a {rows} x {cols} matrix is not what this "
                             f"vector of {size} values encodes (use enc_matmul_encoding)")
        weights = np.zeros(size)
        for j, v in enumerate(values):  # column j's block times v[j]
            weights[j * padded_rows:(j + 1) * padded_rows] = v
        x = self * weights
        step = padded_rows
        while step < padded_rows * padded_cols:  # the column blocks summed into the first
            x = x + x.rotate(step)
            step *= 2
        # Slot i < rows holds row i's sum already: keep those, no mask.
        return self._wrap(x._native().truncated(rows))

    def enc_matmul_plain_(self, plain_vec: ArrayLike, n_rows: int) -> CKKSVector:
        """enc_matmul_plain in place; returns self."""
        self.data = self.enc_matmul_plain(plain_vec, n_rows).data
        return self

    @staticmethod
    def pack_vectors(vectors: Iterable[CKKSVector]) -> CKKSVector:
        """TenSEAL's pack_vectors: the vectors' values one after another in one vector."""
        vectors = list(vectors)
        if not vectors:
            raise ValueError("pack_vectors needs at least one vector")
        return CKKSVector(_heft.pack_vectors([v._native() for v in vectors]), vectors[0]._context)


class BFVVector(_Vector):
    _native_type = _heft.BFVVector
    _kind = int

    def __init__(self, context: Union[Context, _heft.BFVVector, None] = None,
                 vector: Union[ArrayLike, Context, None] = None,
                 native: Optional[_heft.BFVVector] = None,
                 lazy_bytes: Optional[bytes] = None) -> None:
        if isinstance(context, Context) and vector is not None:
            values = _flat_list(vector, int)
            if not values:
                raise ValueError("Attempting to encrypt an empty vector")
            native = _heft.BFVVector.encrypt(context.data, values)
        elif context is not None and not isinstance(context, Context):
            native, context = context, vector
        super().__init__(native, context, lazy_bytes)

    def _wrap(self, native: _heft.BFVVector) -> BFVVector:
        return BFVVector(native, self._context)

    @staticmethod
    def pack_vectors(vectors: Iterable[BFVVector]) -> BFVVector:
        """The vectors' values one after another in one vector (they must fit one
        row of N/2 slots)."""
        vectors = list(vectors)
        if not vectors:
            raise ValueError("pack_vectors needs at least one vector")
        return BFVVector(_heft.BFVVector.pack_vectors([v._native() for v in vectors]),
                         vectors[0]._context)


def ckks_vector(context: Context, vector: ArrayLike, scale: Optional[float] = None) -> CKKSVector:
    """TenSEAL's ts.ckks_vector: `vector` encrypted at the context's global scale."""
    return CKKSVector(context, vector, scale)


def bfv_vector(context: Context, vector: ArrayLike) -> BFVVector:
    """TenSEAL's ts.bfv_vector: integers (mod the plain modulus) encrypted, exact."""
    return BFVVector(context, vector)


def ckks_vector_from(context: Context, data: BytesLike) -> CKKSVector:
    """A CKKSVector from its serialize() bytes, linked to `context`."""
    return CKKSVector(_heft.CKKSVector.load(context.data, bytes(data)), context)


def bfv_vector_from(context: Context, data: BytesLike) -> BFVVector:
    """A BFVVector from its serialize() bytes, linked to `context`."""
    return BFVVector(_heft.BFVVector.load(context.data, bytes(data)), context)


def lazy_ckks_vector_from(data: BytesLike) -> CKKSVector:
    """A vector whose bytes are parsed when link_context(context) is called."""
    return CKKSVector(lazy_bytes=bytes(data))


def lazy_bfv_vector_from(data: BytesLike) -> BFVVector:
    """A BFVVector whose bytes are parsed when link_context(context) is called."""
    return BFVVector(lazy_bytes=bytes(data))


def _power_of_two(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def enc_matmul_encoding(context: Context, matrix: ArrayLike) -> CKKSVector:
    """TenSEAL's enc_matmul_encoding: a plain [rows, cols] matrix encrypted for
    CKKSVector.enc_matmul_plain, column by column: column j in the slots from j r' (r' the
    row count rounded up to a power of two), the vector filling the ciphertext's slots so
    that its rotations spend no level."""
    rows_list = [_flat_list(row, float) for row in matrix]
    rows, cols = len(rows_list), len(rows_list[0]) if rows_list else 0
    if not rows or not cols or any(len(r) != cols for r in rows_list):
        raise ValueError("enc_matmul_encoding takes a non-empty rectangular matrix")
    slots = context.data.slot_count
    padded_rows = _power_of_two(rows)
    if padded_rows * _power_of_two(cols) > slots:
        raise ValueError(f"enc_matmul_encoding: a {rows} x {cols} matrix does not fit the "
                         f"{slots} slots (rows and columns are padded to powers of two)")
    values = [0.0] * slots
    for i, row in enumerate(rows_list):
        for j, v in enumerate(row):
            values[j * padded_rows + i] = v
    return CKKSVector(context, values)


def im2col_encoding(context: Context, tensor: ArrayLike, kernel_n_rows: int, kernel_n_cols: int,
                    stride: int) -> Tuple[CKKSVector, int]:
    """TenSEAL's ts.im2col_encoding: (the encrypted im2col layout, the window count)."""
    native, windows = _heft.im2col_encoding(context.data, _matrix(tensor, float),
                                            int(kernel_n_rows), int(kernel_n_cols), int(stride))
    return CKKSVector(native, context), windows


class LinearTransform:
    """y = M x on a CKKS vector that fills one ciphertext's slots, given by M's
    diagonals {k: d_k} (y = sum_k d_k * rotate(x, k)), encoded once at `level` (the level
    of the vectors it will take, or above) and evaluated with hoisted baby steps: the
    building block of convolutions over channels packed in blocks of slots. `baby_steps`
    (a power of two, 0: a cost model's choice) splits each k into giant + baby; the Galois
    keys needed are rotation_steps()."""

    def __init__(self, context: Context, diagonals: Mapping[int, ArrayLike], level: int,
                 baby_steps: int = 0) -> None:
        diagonals = {int(k): v if hasattr(v, "dtype") else _flat_list(v, float)
                     for k, v in diagonals.items()}
        self.data = _heft.LinearTransform(context.data, diagonals, int(level), int(baby_steps))

    def rotation_steps(self) -> List[int]:
        """The Galois key steps the transform uses (generate_galois_keys(steps))."""
        return list(self.data.rotation_steps())

    @property
    def level(self) -> int:
        """The level its diagonals are encoded at."""
        return self.data.level

    @property
    def diagonal_count(self) -> int:
        """How many diagonals it holds."""
        return self.data.diagonal_count
