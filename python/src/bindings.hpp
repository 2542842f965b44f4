// The parts of heft's Python extension module (_heft), one per file: errors,
// the tensor context, vectors, tensors. python/heft/ builds TenSEAL's API on
// top of them in Python.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heft/rlwe/serialization.hpp"

namespace heft::python {

namespace py = pybind11;

void bind_errors(py::module_& m);
void bind_context(py::module_& m);
void bind_vectors(py::module_& m);
void bind_tensors(py::module_& m);

// f() with the GIL released: heft's work runs while other Python threads
// go on (the arguments are C++ values by then).
template <class F>
auto unlocked(F&& f) {
  py::gil_scoped_release release;
  return f();
}

// Serialized objects cross as Python bytes.
inline py::bytes to_bytes(const rlwe::Bytes& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
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
