"""Contexts: keys, flags, public copies, serialization and pickling."""
import pickle

import pytest

import heft as ts


def test_a_private_context_has_its_keys(ckks_context):
    assert ckks_context.is_private() and not ckks_context.is_public()
    assert ckks_context.has_public_key() and ckks_context.has_relin_keys()
    assert ckks_context.has_galois_keys()
    assert ckks_context.global_scale == 2 ** 40
    assert ckks_context.auto_relin and ckks_context.auto_rescale and ckks_context.auto_mod_switch


def test_a_public_context_computes_but_cannot_decrypt(ckks_context):
    public = ts.context_from(ckks_context.serialize(save_secret_key=False))
    assert public.is_public()
    v = ts.ckks_vector_from(public, ts.ckks_vector(ckks_context, [1.0, 2.0]).serialize())
    doubled = (v + v).serialize()
    with pytest.raises(ValueError):
        ts.ckks_vector_from(public, doubled).decrypt()
    assert ts.ckks_vector_from(ckks_context, doubled).decrypt() == pytest.approx([2.0, 4.0],
                                                                               abs=1e-6)


def test_make_context_public_drops_the_secret_key():
    ctx = ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[60, 40, 40, 60])
    ctx.global_scale = 2 ** 40
    ctx.make_context_public()
    assert ctx.is_public()
    with pytest.raises(ValueError):
        ts.ckks_vector(ctx, [1.0]).decrypt()


def test_pickling_a_context_keeps_its_keys(ckks_context):
    copy = pickle.loads(pickle.dumps(ckks_context))
    assert copy.is_private() and copy.has_galois_keys()
    assert copy.global_scale == ckks_context.global_scale


def test_bad_arguments_raise_typed_errors():
    with pytest.raises(ValueError):
        ts.context(ts.SCHEME_TYPE.CKKS, 8192, coeff_mod_bit_sizes=[])
    with pytest.raises(ValueError):
        ts.context(ts.SCHEME_TYPE.BFV, 4096)
    with pytest.raises(ts.FormatError):
        ts.context_from(b"not a context")
    assert issubclass(ts.MismatchError, ts.Error) and issubclass(ts.MismatchError, ValueError)


def test_every_public_name_and_method_has_a_docstring():
    import inspect
    missing = []
    for name in ts.__all__:
        obj = getattr(ts, name)
        if not inspect.getdoc(obj):
            missing.append(name)
        if not inspect.isclass(obj) or obj.__module__ == "heft._heft":
            continue
        for klass in obj.__mro__:
            if not klass.__module__.startswith("heft.") or klass.__module__ == "heft._heft":
                continue
            for member, value in vars(klass).items():
                if member.startswith("_") or not (callable(value) or isinstance(value, property)):
                    continue
                if not (getattr(value, "__doc__", None) or "").strip():
                    missing.append(f"{klass.__name__}.{member}")
    assert not missing, f"no docstring: {sorted(set(missing))}"


def _annotated_return(function):
    """True when `function` declares its return type: a PEP 484 annotation for Python code,
    pybind11's '-> T' in every signature of its docstring for the extension's."""
    import inspect
    import re
    function = getattr(function, "__func__", function)
    if inspect.isfunction(function):
        return "return" in function.__annotations__
    signatures = [line for line in (function.__doc__ or "").splitlines()
                  if re.match(r"^(\d+\. )?\w*\((\w+: |\))", line)]
    return bool(signatures) and all(") -> " in line for line in signatures)


def test_every_public_function_and_method_has_a_return_annotation():
    import importlib
    import inspect
    modules = [ts, ts.native]
    try:
        modules.append(importlib.import_module("heft.distributed"))
    except ImportError:  # Dask is not installed
        pass
    missing, seen = [], set()
    for module in modules:
        names = getattr(module, "__all__", None) or [
            name for name, value in vars(module).items()
            if getattr(value, "__module__", None) == module.__name__]
        for name in names:
            obj = getattr(module, name)
            if inspect.isroutine(obj):
                if not _annotated_return(obj):
                    missing.append(f"{module.__name__}.{name}")
                continue
            if not inspect.isclass(obj):
                continue
            for klass in obj.__mro__:
                if not klass.__module__.startswith("heft") or klass in seen:
                    continue
                seen.add(klass)
                for member, value in vars(klass).items():
                    if member.startswith("_"):
                        continue
                    if isinstance(value, property):
                        accessors = [f for f in (value.fget, value.fset) if f is not None]
                    elif callable(value) or isinstance(value, (staticmethod, classmethod)):
                        accessors = [getattr(klass, member)]
                    else:
                        continue  # enum members, class constants
                    if not all(_annotated_return(f) for f in accessors):
                        missing.append(f"{klass.__module__}.{klass.__name__}.{member}")
    assert not missing, f"no return annotation: {sorted(set(missing))}"
