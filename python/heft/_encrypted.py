"""What encrypted vectors and tensors share: the native object (possibly
loaded lazily, when a context is linked), copies, and Python's operators.

A subclass sets _native_type (the _heft class that loads its bytes) and
defines _wrap, _operand, pow, mm and the in-place add_, sub_, mul_; it
gets +, -, *, unary -, **, @ and their reflected and in-place forms, as
TenSEAL's objects have them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, TypeVar, Union

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ._context import Context

    # The other operand of arithmetic: an encrypted object of the same kind, or plain
    # values (a number, a list, a numpy array, a PlainTensor).
    Operand = Union["Encrypted", ArrayLike, float, int]

# An encrypted object's own type, for methods that return one of their kind.
_E = TypeVar("_E", bound="Encrypted")


class Encrypted:
    _native_type = None

    def __init__(self, native: Any = None, context: Optional[Context] = None,
                 lazy_bytes: Optional[bytes] = None) -> None:
        self.data = native
        self._context = context
        self._lazy = lazy_bytes

    def _native(self) -> Any:
        if self.data is None:
            raise ValueError("a lazily loaded object: call link_context(context) first")
        return self.data

    def context(self) -> Optional[Context]:
        """The Context this object is linked to (ValueError if lazily loaded and not linked)."""
        return self._context

    def link_context(self, ctx: Context) -> None:
        """Attaches a context (and parses the bytes of a lazily loaded object)."""
        self._context = ctx
        if self._lazy is not None:
            self.data = self._native_type.load(ctx.data, self._lazy)
            self._lazy = None

    def copy(self: _E) -> _E:
        """A deep copy (its own ciphertexts, the same context)."""
        return self._wrap(self._native().copy())

    def __copy__(self: _E) -> _E:
        return self.copy()

    def __deepcopy__(self: _E, memo: dict) -> _E:
        return self.copy()

    # ---- arithmetic: _operand turns the other operand into what the native
    # methods take (a native object, a plain list or tensor, a scalar) ----
    def add(self: _E, other: Operand) -> _E:
        """This plus a ciphertext of the same kind, a plain value, list or array (element-wise)."""
        return self._wrap(self._native().add(self._operand(other)))

    def sub(self: _E, other: Operand) -> _E:
        """This minus a ciphertext of the same kind, a plain value, list or array (element-wise)."""
        return self._wrap(self._native().sub(self._operand(other)))

    def mul(self: _E, other: Operand) -> _E:
        """This times a ciphertext of the same kind, a plain value, list or array (element-wise; a
        level)."""
        return self._wrap(self._native().mul(self._operand(other)))

    def neg(self: _E) -> _E:
        """The negation, element-wise (no level)."""
        return self._wrap(self._native().negate())

    def neg_(self: _E) -> _E:
        """Negates in place; returns self."""
        self.data = self._native().negate()
        return self

    def square(self: _E) -> _E:
        """The element-wise square (a level, relinearized as the context's flags say)."""
        return self._wrap(self._native().square())

    def square_(self: _E) -> _E:
        """Squares in place; returns self."""
        self.data = self._native().square()
        return self

    def __add__(self: _E, other: Operand) -> _E:
        return self.add(other)

    def __radd__(self: _E, other: Operand) -> _E:
        return self.add(other)

    def __iadd__(self: _E, other: Operand) -> _E:
        return self.add_(other)

    def __sub__(self: _E, other: Operand) -> _E:
        return self.sub(other)

    def __rsub__(self: _E, other: Operand) -> _E:
        return self.neg().add(other)

    def __isub__(self: _E, other: Operand) -> _E:
        return self.sub_(other)

    def __mul__(self: _E, other: Operand) -> _E:
        return self.mul(other)

    def __rmul__(self: _E, other: Operand) -> _E:
        return self.mul(other)

    def __imul__(self: _E, other: Operand) -> _E:
        return self.mul_(other)

    def __neg__(self: _E) -> _E:
        return self.neg()

    def __pow__(self: _E, power: int) -> _E:
        return self.pow(power)

    def __matmul__(self: _E, other: Any) -> _E:
        return self.mm(other)
