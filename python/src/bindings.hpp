// The parts of heft's Python extension module (_heft), one per file: errors,
// the tensor context, vectors, tensors, and the native scheme layer. python/heft/ builds TenSEAL's
// API on top of them in Python.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heft/rlwe/serialization.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_context(py::module_& m);
void bind_vectors(py::module_& m);
void bind_tensors(py::module_& m);
void bind_matrices(py::module_& m);  // after bind_vectors: it adds to CKKSVector
// heft.native's classes, into the submodule _heft.native.
void bind_native(py::module_& m);

// f() with the GIL released: heft's work runs while other Python threads
// go on (the arguments are C++ values by then).
template <class F>
auto unlocked(F&& f) {
  py::gil_scoped_release release;
  return f();
}

// Serialized objects cross as Python bytes.
// Written into a fresh bytes object marked for huge pages first: a
// bootstrappable context's bytes are gigabytes, and faulting them in 4 KiB
// pages cost more than the copy.
inline py::bytes to_bytes(const rlwe::Bytes& bytes) {
  PyObject* object = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(bytes.size()));
  if (object == nullptr) throw py::error_already_set();
  char* data = PyBytes_AS_STRING(object);
  advise_huge_pages(data, bytes.size());
  std::copy(bytes.begin(), bytes.end(), data);
  return py::reinterpret_steal<py::bytes>(object);
}
// A view of the Python bytes, not a copy (a 4096-image request is 282 MiB):
// valid while `bytes` lives, which the caller's argument guarantees for the
// call, and bytes objects are immutable, so the GIL may be released while
// heft reads it.
inline std::span<const uint8_t> from_bytes(const py::bytes& bytes) {
  const std::string_view view = bytes;
  return {reinterpret_cast<const uint8_t*>(view.data()), view.size()};
}

}  // namespace heft::python
