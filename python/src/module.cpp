// heft's Python extension module, _heft: the C++ tensor layer
// (heft/tensor/) as Python classes, and the scheme layer under it as the
// submodule _heft.native. Imported by python/heft/__init__.py.
#include "bindings.hpp"

PYBIND11_MODULE(_heft, m) {
  m.doc() = "heft's C++ tensor layer; use the heft package, which wraps it";
  heft::python::bind_errors(m);
  heft::python::bind_context(m);
  heft::python::bind_vectors(m);
  heft::python::bind_tensors(m);
  heft::python::bind_matrices(m);
  auto native = m.def_submodule(
      "native", "heft's scheme layer: parameters, keys, encoders, encryptors, evaluators");
  // Its classes name the package module that re-exports them (heft/native.py),
  // in signatures and for pickle.
  native.attr("__name__") = "heft.native";
  heft::python::bind_native(native);
}
