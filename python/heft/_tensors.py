"""TenSEAL's PlainTensor, CKKSTensor and BFVTensor over heft's C++ tensors.

heft's C++ CKKSTensor is batched on its first axis (one slot per batch
entry, one ciphertext per element of the other axes). TenSEAL's
`ckks_tensor(ctx, t, batch=True)` is that; `batch=False` (TenSEAL's
default) is the same with a batch of one, the leading axis hidden from
the user. As in TenSEAL, a batched tensor's `shape` leaves the batch out
too (`shape_with_batch` has it), while sum(axis) and decrypt() count it.
"""
from __future__ import annotations

import numbers
from typing import (TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple, Type, TypeVar,
                    Union)

from . import _heft
from ._context import BytesLike, Context, SecretKey
from ._encrypted import Encrypted

if TYPE_CHECKING:
    from numpy import ndarray
    from numpy.typing import ArrayLike

    from ._encrypted import Operand

# A tensor's own type, for the methods CKKSTensor and BFVTensor share.
_T = TypeVar("_T", bound="_Tensor")


def _shape_of(values: Any) -> List[int]:
    shape = []
    while isinstance(values, (list, tuple)):
        shape.append(len(values))
        values = values[0] if values else None
    return shape


def _flatten(values: Any) -> List[float]:
    if isinstance(values, (list, tuple)):
        out = []
        for v in values:
            out.extend(_flatten(v))
        return out
    return [float(values)]


class PlainTensor:
    """An N-D array of floats (row-major), TenSEAL's PlainTensor."""

    def __init__(self, tensor: Union[PlainTensor, ArrayLike, _heft.PlainTensor],
                 shape: Optional[Sequence[int]] = None, dtype: str = "float",
                 scalar: bool = False) -> None:
        del dtype
        # A reduction to one value (sum of a vector, dot of two): numpy's shape (),
        # which the C++ tensor (at least one axis) holds as [1].
        self._scalar = bool(scalar)
        if isinstance(tensor, _heft.PlainTensor):
            self.data = tensor
            return
        if isinstance(tensor, PlainTensor):
            tensor = tensor.tolist()
        if hasattr(tensor, "shape") and hasattr(tensor, "reshape"):  # numpy arrays, torch tensors
            flat = tensor.reshape(-1).tolist()
            self.data = _heft.PlainTensor([float(v) for v in flat],
                                          [int(d) for d in (shape or tensor.shape)])
            return
        if hasattr(tensor, "tolist"):
            tensor = tensor.tolist()
        if isinstance(tensor, numbers.Number):
            tensor = [tensor]
        flat = _flatten(tensor)
        if shape is None:
            shape = _shape_of(tensor)
        self.data = _heft.PlainTensor(flat, [int(d) for d in shape])

    @property
    def shape(self) -> List[int]:
        """The axes' lengths ([] for a scalar)."""
        return [] if self._scalar else list(self.data.shape)

    def serialize(self) -> bytes:
        """Bytes for plain_tensor_from: a magic, the rank and shape (little-endian uint64),
        then the values as little-endian float64. Plain data: not encrypted."""
        import struct
        shape = self.data.shape
        return (_PLAIN_MAGIC + struct.pack(f"<Q{len(shape)}Q", len(shape), *shape)
                + struct.pack(f"<{len(self.data.data)}d", *self.data.data))

    def strides(self) -> List[int]:
        """Elements between consecutive entries of each axis (row-major; TenSEAL's)."""
        strides, step = [], 1
        for length in reversed(self.shape):
            strides.append(step)
            step *= length
        return strides[::-1]

    @property
    def raw(self) -> List[float]:
        """The values, flat and row-major."""
        return list(self.data.data)

    def size(self) -> int:
        """The length of the first axis (TenSEAL's size() and len())."""
        return self.shape[0]

    def __len__(self) -> int:
        return self.shape[0]

    def empty(self) -> bool:
        """True when it holds no value."""
        return not self.data.data

    def batch(self, axis: int = 0) -> List[List[float]]:
        """The values as rows of the given axis: every other axis flattened
        (TenSEAL's batch(axis), used to pack one axis into the slots)."""
        import numpy
        return numpy.moveaxis(self.numpy(), axis, -1).reshape(-1, self.shape[axis]).tolist()

    def tolist(self) -> Union[float, list]:
        """Nested Python lists of the values (a number for a scalar)."""
        values, shape = list(self.data.data), self.shape
        if self._scalar:
            return values[0]

        def build(offset: int, axes: List[int]) -> Tuple[list, int]:
            if len(axes) == 1:
                return values[offset:offset + axes[0]], offset + axes[0]
            out = []
            for _ in range(axes[0]):
                item, offset = build(offset, axes[1:])
                out.append(item)
            return out, offset

        return build(0, shape)[0]

    def numpy(self) -> ndarray:
        """A numpy array of the values, of this shape."""
        import numpy
        return numpy.array(self.data.data).reshape(self.shape)  # shape () for a scalar

    def reshape(self, shape: Sequence[int]) -> PlainTensor:
        """numpy's reshape (the same values, row-major)."""
        return PlainTensor(self.data.reshape([int(d) for d in shape]))

    def reshape_(self, shape: Sequence[int]) -> PlainTensor:
        """Reshapes in place; returns self."""
        self.data = self.data.reshape([int(d) for d in shape])
        return self

    def transpose(self) -> PlainTensor:
        """The axes reversed."""
        return PlainTensor(self.data.transpose())

    def transpose_(self) -> PlainTensor:
        """Transposes in place; returns self."""
        self.data = self.data.transpose()
        return self

    def broadcast(self, shape: Sequence[int]) -> PlainTensor:
        """numpy's broadcast_to."""
        return PlainTensor(self.data.broadcast_to([int(d) for d in shape]))

    def broadcast_(self, shape: Sequence[int]) -> PlainTensor:
        """Broadcasts in place; returns self."""
        self.data = self.data.broadcast_to([int(d) for d in shape])
        return self

    def sum(self, axis: int = 0) -> PlainTensor:
        """The sum along an axis."""
        return PlainTensor(self.data.sum(int(axis)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PlainTensor) and self.shape == other.shape
                and self.raw == other.raw)


_PLAIN_MAGIC = b"heft-plain-tensor-1\n"


def plain_tensor_from(data: BytesLike) -> PlainTensor:
    """A PlainTensor from PlainTensor.serialize()'s bytes (TenSEAL's plain_tensor_from);
    ValueError for bytes that are not one."""
    import struct
    data = bytes(data)
    head = len(_PLAIN_MAGIC)
    if data[:head] != _PLAIN_MAGIC or len(data) < head + 8:
        raise ValueError("plain_tensor_from: not the bytes of a PlainTensor")
    (rank,) = struct.unpack_from("<Q", data, head)
    if rank < 1 or rank > 32 or len(data) < head + 8 * (1 + rank):
        raise ValueError("plain_tensor_from: a malformed shape")
    shape = list(struct.unpack_from(f"<{rank}Q", data, head + 8))
    count = 1
    for d in shape:
        count *= d
    body = head + 8 * (1 + rank)
    if count < 1 or len(data) != body + 8 * count:
        raise ValueError("plain_tensor_from: the values do not match the shape")
    return PlainTensor(list(struct.unpack_from(f"<{count}d", data, body)), shape)


def plain_tensor(tensor: Union[PlainTensor, ArrayLike], shape: Optional[Sequence[int]] = None,
                 dtype: str = "float") -> PlainTensor:
    """TenSEAL's ts.plain_tensor: a list, nested lists or a numpy array (with an optional
    shape for flat values) as a PlainTensor."""
    return PlainTensor(tensor, shape, dtype)


class SignApproximation:
    """A composite polynomial close to sign(x) (for relu and max)."""

    def __init__(self, epsilon: float = 0.05, precision_bits: float = 10,
                 stage_degree: int = 15) -> None:
        self.data = _heft.SignApproximation(float(epsilon), float(precision_bits),
                                            int(stage_degree))

    def depth(self) -> int:
        """Levels its evaluation spends."""
        return self.data.depth()


class _Tensor(Encrypted):
    """What CKKSTensor and BFVTensor share: TenSEAL's tensor methods over a C++
    tensor batched on its first axis (unbatched: a hidden batch of one)."""

    _kind = float

    def __init__(self, context: Optional[Context] = None,
                 tensor: Union[PlainTensor, ArrayLike, None] = None, batch: bool = False,
                 native: Any = None, lazy_bytes: Optional[bytes] = None) -> None:
        super().__init__(native, context, lazy_bytes)
        self._batched = bool(batch)
        self._scalar = False  # a reduction to one value: shape [], decrypts to a number
        if native is None and tensor is not None:
            plain = tensor if isinstance(tensor, PlainTensor) else PlainTensor(tensor)
            if not plain.raw:
                raise ValueError("Attempting to encrypt an empty vector")
            native_plain = plain.data if batch else plain.data.reshape([1] + plain.shape)
            self.data = self._native_type.encrypt(context.data, native_plain)

    def _become(self: _T, result: _Tensor) -> _T:
        """In-place forms (add_, dot_, ...): this object takes the result's data."""
        self.data, self._scalar = result.data, result._scalar
        return self

    def _wrap(self: _T, native: Any, scalar: Optional[bool] = None) -> _T:
        out = type(self)(self._context, batch=self._batched, native=native)
        if scalar is None:  # a scalar stays one while the result holds one value
            scalar = self._scalar and all(d == 1 for d in list(native.shape)[1:])
        out._scalar = scalar
        return out

    @staticmethod
    def _plain(other: Union[PlainTensor, ArrayLike]) -> _heft.PlainTensor:
        """The native plain tensor of a PlainTensor, list or array (against an
        unbatched tensor, its hidden batch axis of one broadcasts)."""
        return (other if isinstance(other, PlainTensor) else PlainTensor(other)).data

    def _operand(self, other: Operand) -> Any:
        if isinstance(other, _Tensor):
            return other._native()
        if isinstance(other, numbers.Number):
            return self._kind(other)
        return self._plain(other)

    def _stretched_for(self: _T, other: Operand) -> _T:
        """This tensor broadcast to its shape with a plain operand that has more or
        longer axes (the native operations broadcast a plain operand one way only)."""
        if isinstance(other, (_Tensor, numbers.Number)):
            return self
        import numpy
        plain = other if isinstance(other, PlainTensor) else PlainTensor(other)
        own = list(self._native().shape) if self._batched else self.shape
        try:
            target = list(numpy.broadcast_shapes(tuple(own), tuple(plain.shape)))
        except ValueError:
            return self  # the native call names the mismatch
        return self if target == own else self.broadcast(target)

    def add(self: _T, other: Operand) -> _T:
        """Element-wise sum with a tensor, a plain tensor, list, array or number (numpy
        broadcasting)."""
        return self._wrap(self._stretched_for(other)._native().add(self._operand(other)))

    def sub(self: _T, other: Operand) -> _T:
        """Element-wise difference with a tensor, a plain tensor, list, array or number
        (broadcasting)."""
        return self._wrap(self._stretched_for(other)._native().sub(self._operand(other)))

    def mul(self: _T, other: Operand) -> _T:
        """Element-wise product with a tensor, a plain tensor, list, array or number (a level)."""
        return self._wrap(self._stretched_for(other)._native().mul(self._operand(other)))

    @property
    def shape(self) -> List[int]:
        """The tensor's axes; a batched tensor's batch axis is left out, as TenSEAL has it
        (shape_with_batch has it). reshape, broadcast, take and subscripts use this
        shape; sum(axis) and decrypt() count the batch as axis 0, as TenSEAL does."""
        if self._scalar:
            return []
        shape = list(self._native().shape)
        if self._batched:
            return shape[1:] if len(shape) > 1 else []
        return shape[1:] or [1]

    @property
    def shape_with_batch(self) -> List[int]:
        """The shape with a batched tensor's batch axis first (TenSEAL's shape_with_batch)."""
        shape = list(self._native().shape)
        return shape if self._batched else self.shape

    def _native_shape(self, shape: List[int]) -> List[int]:
        """The C++ tensor's shape for `shape`, in this tensor's convention."""
        batch = list(self._native().shape)[0]
        return [batch] + shape if shape else [batch]

    def decrypt(self, secret_key: Optional[SecretKey] = None) -> PlainTensor:
        """A PlainTensor of the tensor's own shape (TenSEAL returns it flat in some versions)."""
        native = self._native()
        plain = native.decrypt() if secret_key is None else native.decrypt_with(secret_key.data)
        if not self._batched:
            plain = plain.reshape(self.shape or [1])
        return PlainTensor(plain, scalar=self._scalar)

    def serialize(self) -> bytes:
        """heft's bytes for this tensor (a batched flag, then docs/format.md's tensor frame)."""
        return bytes([1 if self._batched else 0]) + self._native().serialize()

    def __getstate__(self) -> Dict[str, bytes]:
        return {"bytes": self.serialize()}

    def __setstate__(self, state: Dict[str, bytes]) -> None:
        self._context, self.data = None, None
        self._batched, self._lazy = bool(state["bytes"][0]), state["bytes"][1:]
        self._scalar = False

    # ---- arithmetic ----
    def add_(self: _T, other: Operand) -> _T:
        """Adds in place; returns self."""
        self._become(self.add(other))
        return self

    def sub_(self: _T, other: Operand) -> _T:
        """Subtracts in place; returns self."""
        self._become(self.sub(other))
        return self

    def mul_(self: _T, other: Operand) -> _T:
        """Multiplies in place; returns self."""
        self._become(self.mul(other))
        return self

    def pow(self: _T, power: int) -> _T:
        """The element-wise power by a non-negative integer (x ** 0 is ones, encrypted)."""
        power = int(power)
        if power < 0:
            raise ValueError("pow takes a non-negative integer exponent")
        if power == 0:  # ones, encrypted (x - x is re-randomized, not transparent)
            return (self - self) + 1
        coefficients = [0] * power + [1]
        return self.polyval(coefficients)

    def polyval(self: _T, coefficients: Sequence[float]) -> _T:
        """sum_k coefficients[k] x^k element-wise, lowest degree first."""
        return self._wrap(self._native().polyval([self._kind(c) for c in coefficients]))

    def polyval_(self: _T, coefficients: Sequence[float]) -> _T:
        """Evaluates the polynomial in place; returns self."""
        self._become(self.polyval(coefficients))
        return self

    def sum(self: _T, axis: int = 0) -> _T:
        """numpy's sum along `axis`; a batched tensor counts its batch as axis 0 (as
        TenSEAL does): sum(0) is sum_batch(). The sum of a vector is a scalar (shape [])."""
        axis = int(axis)
        if self._batched and axis == 0:
            return self.sum_batch()
        native = self._native().sum(axis if self._batched else axis + 1)
        return self._wrap(native, scalar=not self._batched and len(self.shape) == 1)

    def sum_batch(self: _T) -> _T:
        """The sum over the batch (TenSEAL's sum_batch): an unbatched tensor of the
        other axes."""
        if not self._batched:
            raise ValueError("sum_batch needs a batched tensor (ckks_tensor(..., batch=True))")
        out = type(self)(self._context, batch=False, native=self._native().sum(0))
        out._scalar = len(self._native().shape) == 1  # a batch of single values
        return out

    def sum_batch_(self: _T) -> _T:
        """Sums the batch in place (the tensor becomes unbatched); returns self."""
        summed = self.sum_batch()
        self.data, self._batched, self._scalar = summed.data, False, summed._scalar
        return self

    def reshape(self: _T, shape: Sequence[int]) -> _T:
        """numpy's reshape of the axes in `shape` (a batched tensor keeps its batch)."""
        shape = [int(d) for d in shape]
        return self._wrap(self._native().reshape(self._native_shape(shape)))

    def reshape_(self: _T, shape: Sequence[int]) -> _T:
        """Reshapes in place; returns self."""
        self._become(self.reshape(shape))
        return self

    def transpose(self: _T) -> _T:
        """The axes reversed (a batched tensor keeps its batch first)."""
        return self._wrap(self._native().transpose())

    def transpose_(self: _T) -> _T:
        """Transposes in place; returns self."""
        self._become(self.transpose())
        return self

    def broadcast(self: _T, shape: Sequence[int]) -> _T:
        """numpy.broadcast_to: each value repeated as a copy of its ciphertext."""
        shape = [int(d) for d in shape]
        return self._wrap(self._native().broadcast_to(self._native_shape(shape)))

    def broadcast_(self: _T, shape: Sequence[int]) -> _T:
        """Broadcasts in place; returns self."""
        self._become(self.broadcast(shape))
        return self

    def take(self: _T, indices: Sequence[int], axis: int) -> _T:
        """numpy.take along an axis of `shape` (a batched tensor's batch axis is not in it:
        its values stay in the slots): the chosen elements, still encrypted."""
        rank = len(self.shape)
        axis = int(axis)
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} of a tensor of shape {self.shape}")
        return self._wrap(self._native().take(axis % rank + 1, [int(i) for i in indices]))

    def __getitem__(self: _T, key: Union[int, slice, tuple]) -> _T:
        """Integers and slices over the axes of `shape` (numpy's basic indexing); the data
        stays encrypted. A batched tensor keeps its whole batch (rotate moves it)."""
        key = key if isinstance(key, tuple) else (key,)
        native_shape = list(self._native().shape)
        if len(key) > len(native_shape) - 1:
            raise IndexError(f"too many indices for a tensor of shape {self.shape}")
        native, dropped = self._native(), []
        for offset, k in enumerate(key):
            axis = 1 + offset
            length = native_shape[axis]
            if isinstance(k, slice):
                indices = list(range(length))[k]
                if not indices:
                    raise IndexError(f"an empty slice of axis {offset}")
            elif isinstance(k, numbers.Integral):
                if not -length <= k < length:
                    raise IndexError(f"index {k} is out of range for an axis of length {length}")
                indices = [int(k) % length]
                dropped.append(axis)
            else:
                raise IndexError("only integers and slices index an encrypted tensor")
            if indices != list(range(length)):
                native = native.take(axis, indices)
        shape = [d for a, d in enumerate(native.shape) if a not in dropped]
        if len(shape) == 1 and not self._batched:
            shape = shape + [1]  # an unbatched single value keeps one axis
        if shape != list(native.shape):
            native = native.reshape(shape)
        return self._wrap(native)

    def dot(self: _T, other: Operand) -> _T:
        """numpy.dot for tensors of one or two axes (vector . vector, vector . matrix,
        matrix . vector, matrix . matrix), with a plain or an encrypted operand; a batched
        tensor multiplies its [batch, n] rows by a plain matrix (mm). Unbatched, one
        product level: the operands are broadcast against each other (each value is its
        own ciphertext) and summed over the shared axis, with no rotation."""
        if self._batched:
            return self.mm(other)
        if not isinstance(other, _Tensor):
            other = other if isinstance(other, PlainTensor) else PlainTensor(other)
        a, b = self.shape, other.shape
        if len(a) > 2 or len(b) > 2:
            raise NotImplementedError("dot of tensors with more than two axes")
        if a[-1] != b[0]:
            raise ValueError(f"dot: shapes {a} and {b} are not aligned")
        if len(a) == 1 and len(b) == 1:
            return (self * other).sum(0)
        # A plain operand broadcasts to the encrypted one's shape only, so the
        # encrypted one is stretched to the product's shape first.
        if len(a) == 1:  # (n) . (n, m): (n, 1) * (n, m), summed over n
            return (self.reshape([a[0], 1]).broadcast(b) * other).sum(0)
        if len(b) == 1:  # (k, n) . (n): (k, n) * (n), summed over n
            return (self * other).sum(1)
        # (k, n) . (n, m): (k, n, 1) * (1, n, m), summed over n
        product = [a[0], a[1], b[1]]
        return (self.reshape([a[0], a[1], 1]).broadcast(product) *
                other.reshape([1, b[0], b[1]])).sum(1)

    def mm_(self: _T, other: Operand) -> _T:
        """The matrix product in place; returns self."""
        return self._become(self.mm(other))

    def matmul_(self: _T, other: Operand) -> _T:
        """The matrix product in place; returns self."""
        return self._become(self.mm(other))

    def dot_(self: _T, other: Operand) -> _T:
        """The dot product in place; returns self."""
        self._become(self.dot(other))
        return self


class CKKSTensor(_Tensor):
    """TenSEAL's CKKSTensor: an encrypted N-D tensor of reals."""

    _native_type = _heft.CKKSTensor
    _kind = float

    def __init__(self, context: Optional[Context] = None,
                 tensor: Union[PlainTensor, ArrayLike, None] = None, scale: Optional[float] = None,
                 batch: bool = False, native: Optional[_heft.CKKSTensor] = None,
                 lazy_bytes: Optional[bytes] = None) -> None:
        if native is None and tensor is not None and scale is not None \
                and scale != context.global_scale:
            # The C++ tensor encrypts at the context's scale: lend it this
            # one for the call (not safe while other threads encrypt under
            # the same context).
            saved = context.global_scale
            context.global_scale = scale
            try:
                super().__init__(context, tensor, batch, native, lazy_bytes)
            finally:
                context.global_scale = saved
            return
        super().__init__(context, tensor, batch, native, lazy_bytes)

    def mm(self, other: Union[CKKSTensor, PlainTensor, ArrayLike]) -> CKKSTensor:
        """Matrix product: a batched [batch, n] tensor times a plain [n, m] matrix, or numpy's
        product with an encrypted or plain matrix."""
        if isinstance(other, CKKSTensor):
            return self._wrap(self._native().mm(other._native()))
        if not self._batched and len(self.shape) != 1:
            return self.dot(other)  # numpy's matrix product, through broadcasting
        return self._wrap(self._native().mm(self._plain(other)))

    matmul = mm

    def conv2d(self, kernels: Union[PlainTensor, ArrayLike], stride: int = 1) -> CKKSTensor:
        """A batch of images ([batch, H, W] or [batch, C, H, W], one image per slot) convolved with
        plain kernels [C_out, (C_in,) kh, kw], stride both ways, no padding; one level."""
        return self._wrap(self._native().conv2d(self._plain(kernels), int(stride)))

    def avg_pool2d(self, kernel: int, stride: int) -> CKKSTensor:
        """Average pooling of each channel over kernel x kernel windows, stride apart; one level."""
        return self._wrap(self._native().avg_pool2d(int(kernel), int(stride)))

    def level(self) -> int:
        """Levels left (each product by a value or a ciphertext spends one)."""
        return self._native().level()

    def rotate(self, steps: int) -> CKKSTensor:
        """A batched tensor whose batch fills the slots (N/2 entries), every element's
        batch rolled left by `steps` (numpy.roll(x, -steps, axis=0)); no level. With
        inputs packed in blocks of the batch (images of 32 x 32 slots), a rotation moves
        each block's values to their neighbours. Needs Galois keys for the step."""
        self._require_batched("rotate")
        return self._wrap(self._native().rotate(int(steps)))

    def rotate_(self, steps: int) -> CKKSTensor:
        """Rotates the batch in place; returns self."""
        self._become(self.rotate(steps))
        return self

    def rotate_hoisted(self, steps: Sequence[int]) -> CKKSTensor:
        """Several rotations of every element sharing one key-switching decomposition:
        shape [...] -> [len(steps), ...], entry s rotated by steps[s]."""
        self._require_batched("rotate_hoisted")
        return self._wrap(self._native().rotate_hoisted([int(s) for s in steps]))

    def bootstrap(self) -> CKKSTensor:
        """Every element refreshed by bootstrapping (a bootstrappable_context with its
        keys): the same values within the bootstrap's precision, at the context's
        encryption level. Values should be at most about 1 in absolute value."""
        return self._wrap(self._native().bootstrap())

    def bootstrap_(self) -> CKKSTensor:
        """Bootstraps in place; returns self."""
        self._become(self.bootstrap())
        return self

    def refresh_for(self, levels: int) -> CKKSTensor:
        """This tensor if `levels` are left, else bootstrapped."""
        return self._wrap(self._native().refresh_for(int(levels)))

    def _require_batched(self, operation: str) -> None:
        if not self._batched:
            raise ValueError(f"{operation} rolls the batch axis: it needs a batched tensor "
                             "(ckks_tensor(..., batch=True))")

    def relu(self, sign: Optional[SignApproximation] = None) -> CKKSTensor:
        """max(x, 0) element-wise through a sign approximation (values in [-1, 1])."""
        sign = sign or SignApproximation()
        return self._wrap(self._native().relu(sign.data))

    def max(self, other: CKKSTensor, sign: Optional[SignApproximation] = None) -> CKKSTensor:
        """max(self, other) element-wise through a sign approximation (differences in [-1, 1])."""
        sign = sign or SignApproximation()
        return self._wrap(self._native().max(other._native(), sign.data))


class BFVTensor(_Tensor):
    """TenSEAL's BFVTensor: an encrypted N-D tensor of integers modulo t, exact."""

    _native_type = _heft.BFVTensor
    _kind = int

    def __init__(self, context: Optional[Context] = None,
                 tensor: Union[PlainTensor, ArrayLike, None] = None, batch: bool = False,
                 native: Optional[_heft.BFVTensor] = None,
                 lazy_bytes: Optional[bytes] = None) -> None:
        super().__init__(context, tensor, batch, native, lazy_bytes)

    def mm(self, other: Union[BFVTensor, PlainTensor, ArrayLike]) -> BFVTensor:
        """A matrix product with numpy's dot semantics (unbatched tensors)."""
        if self._batched:
            raise NotImplementedError("a batched BFVTensor times a matrix: use an unbatched "
                                      "tensor (batch=False)")
        return self.dot(other)

    matmul = mm


def ckks_tensor(context: Context, tensor: Union[PlainTensor, ArrayLike],
                scale: Optional[float] = None, batch: bool = False) -> CKKSTensor:
    """TenSEAL's ts.ckks_tensor; batch=True packs the first axis into the slots."""
    return CKKSTensor(context, tensor, scale, batch)


def _tensor_from(kind: Type[_T], context: Context, data: BytesLike) -> _T:
    t = _lazy_tensor_from(kind, data)
    t.link_context(context)
    return t


def _lazy_tensor_from(kind: Type[_T], data: BytesLike) -> _T:
    data = bytes(data)  # a batched flag, then the C++ tensor's bytes
    return kind(batch=bool(data[0]), lazy_bytes=data[1:])


def ckks_tensor_from(context: Context, data: BytesLike) -> CKKSTensor:
    """A CKKSTensor from its serialize() bytes, linked to `context`."""
    return _tensor_from(CKKSTensor, context, data)


def lazy_ckks_tensor_from(data: BytesLike) -> CKKSTensor:
    """A CKKSTensor from its bytes, loaded when link_context(context) is called."""
    return _lazy_tensor_from(CKKSTensor, data)


def bfv_tensor(context: Context, tensor: Union[PlainTensor, ArrayLike],
               batch: bool = False) -> BFVTensor:
    """TenSEAL's ts.bfv_tensor; batch=True packs the first axis into the slots."""
    return BFVTensor(context, tensor, batch)


def bfv_tensor_from(context: Context, data: BytesLike) -> BFVTensor:
    """A BFVTensor from its serialize() bytes, linked to `context`."""
    return _tensor_from(BFVTensor, context, data)


def lazy_bfv_tensor_from(data: BytesLike) -> BFVTensor:
    """A BFVTensor from its bytes, loaded when link_context(context) is called."""
    return _lazy_tensor_from(BFVTensor, data)
