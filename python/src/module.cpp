// heft's Python extension module, _heft: the C++ tensor layer
// (heft/tensor/) as Python classes. Imported by python/heft/__init__.py.
#include "bindings.hpp"

PYBIND11_MODULE(_heft, m) {
  m.doc() = "heft's C++ tensor layer; use the heft package, which wraps it";
  heft::python::bind_errors(m);
  heft::python::bind_context(m);
  heft::python::bind_vectors(m);
  heft::python::bind_tensors(m);
  heft::python::bind_matrices(m);
}
