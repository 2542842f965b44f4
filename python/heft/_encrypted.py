"""What encrypted vectors and tensors share: the native object (possibly
loaded lazily, when a context is linked), copies, and Python's operators.

A subclass sets _native_type (the _heft class that loads its bytes) and
defines _wrap, _operand, pow, mm and the in-place add_, sub_, mul_; it
gets +, -, *, unary -, **, @ and their reflected and in-place forms, as
TenSEAL's objects have them.
"""


class Encrypted:
    _native_type = None

    def __init__(self, native=None, context=None, lazy_bytes=None):
        self.data = native
        self._context = context
        self._lazy = lazy_bytes

    def _native(self):
        if self.data is None:
            raise ValueError("a lazily loaded object: call link_context(context) first")
        return self.data

    def context(self):
        """The Context this object is linked to (ValueError if lazily loaded and not linked)."""
        return self._context

    def link_context(self, ctx):
        """Attaches a context (and parses the bytes of a lazily loaded object)."""
        self._context = ctx
        if self._lazy is not None:
            self.data = self._native_type.load(ctx.data, self._lazy)
            self._lazy = None

    def copy(self):
        """A deep copy (its own ciphertexts, the same context)."""
        return self._wrap(self._native().copy())

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    # ---- arithmetic: _operand turns the other operand into what the native
    # methods take (a native object, a plain list or tensor, a scalar) ----
    def add(self, other):
        """This plus a ciphertext of the same kind, a plain value, list or array (element-wise)."""
        return self._wrap(self._native().add(self._operand(other)))

    def sub(self, other):
        """This minus a ciphertext of the same kind, a plain value, list or array (element-wise)."""
        return self._wrap(self._native().sub(self._operand(other)))

    def mul(self, other):
        """This times a ciphertext of the same kind, a plain value, list or array (element-wise; a
        level)."""
        return self._wrap(self._native().mul(self._operand(other)))

    def neg(self):
        """The negation, element-wise (no level)."""
        return self._wrap(self._native().negate())

    def neg_(self):
        """Negates in place; returns self."""
        self.data = self._native().negate()
        return self

    def square(self):
        """The element-wise square (a level, relinearized as the context's flags say)."""
        return self._wrap(self._native().square())

    def square_(self):
        """Squares in place; returns self."""
        self.data = self._native().square()
        return self

    def __add__(self, other):
        return self.add(other)

    def __radd__(self, other):
        return self.add(other)

    def __iadd__(self, other):
        return self.add_(other)

    def __sub__(self, other):
        return self.sub(other)

    def __rsub__(self, other):
        return self.neg().add(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __mul__(self, other):
        return self.mul(other)

    def __rmul__(self, other):
        return self.mul(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __neg__(self):
        return self.neg()

    def __pow__(self, power):
        return self.pow(power)

    def __matmul__(self, other):
        return self.mm(other)
