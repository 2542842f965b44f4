// CKKSMatrix for Python (heft/tensor/ckks_matrix.hpp): encrypted matrices
// for products where both operands are encrypted, and CKKSVector times
// one. Work runs without the GIL.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "heft/tensor/ckks_matrix.hpp"
#include "heft/tensor/ckks_vector.hpp"

namespace heft::python {

using tensor::CKKSMatrix;
using tensor::CKKSVector;
using tensor::TensorContext;

void bind_matrices(py::module_& m) {
  py::class_<CKKSMatrix>(m, "CKKSMatrix")
      .def_static(
          "encrypt",
          [](TensorContext::Ptr context, const CKKSMatrix::Rows& rows, std::size_t block) {
            return unlocked([&] { return CKKSMatrix::encrypt(std::move(context), rows, block); });
          },
          py::arg("context"), py::arg("rows"), py::arg("block") = 0)
      .def_static("default_block_size", &CKKSMatrix::default_block_size)
      .def_static("galois_steps", &CKKSMatrix::galois_steps)
      .def("decrypt", [](const CKKSMatrix& a) { return unlocked([&] { return a.decrypt(); }); })
      .def("matmul", [](const CKKSMatrix& a,
                        const CKKSMatrix& b) { return unlocked([&] { return a.matmul(b); }); })
      .def("add", [](const CKKSMatrix& a,
                     const CKKSMatrix& b) { return unlocked([&] { return a.add(b); }); })
      .def("sub", [](const CKKSMatrix& a,
                     const CKKSMatrix& b) { return unlocked([&] { return a.sub(b); }); })
      .def("copy", &CKKSMatrix::copy)
      .def("context", [](const CKKSMatrix& a) { return a.context(); })
      .def_property_readonly("rows", &CKKSMatrix::rows)
      .def_property_readonly("cols", &CKKSMatrix::cols)
      .def_property_readonly("block_size", &CKKSMatrix::block_size)
      .def("level", &CKKSMatrix::level)
      .def("serialize",
           [](const CKKSMatrix& a) { return to_bytes(unlocked([&] { return a.serialize(); })); })
      .def_static("load", [](TensorContext::Ptr context, const py::bytes& data) {
        const auto bytes = from_bytes(data);
        return unlocked([&] { return CKKSMatrix::load(std::move(context), bytes); });
      });
  // CKKSVector x CKKSMatrix, beside CKKSVector's plain matmul.
  // (bind_vectors made the class; this adds a method to it.)
  auto vector = py::reinterpret_borrow<py::class_<CKKSVector>>(m.attr("CKKSVector"));
  vector.def("matmul_encrypted", [](const CKKSVector& v, const CKKSMatrix& matrix) {
    return unlocked([&] { return v.matmul(matrix); });
  });
}

}  // namespace heft::python
