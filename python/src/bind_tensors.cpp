// PlainTensor and CKKSTensor for Python (heft/tensor/plain_tensor.hpp,
// ckks_tensor.hpp): N-D tensors batched on their first axis, their
// arithmetic, products, convolutions and serialization.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "heft/circuits/approximation.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::python {

using tensor::CKKSTensor;
using tensor::PlainTensor;
using tensor::Shape;
using tensor::TensorContext;

void bind_tensors(py::module_& m) {
  py::class_<PlainTensor>(m, "PlainTensor")
      .def(py::init<std::vector<double>, Shape>(), py::arg("data"), py::arg("shape"))
      .def_property_readonly("shape", &PlainTensor::shape)
      .def_property_readonly("data", &PlainTensor::data)
      .def("reshape", &PlainTensor::reshape)
      .def("transpose", py::overload_cast<>(&PlainTensor::transpose, py::const_))
      .def("sum", &PlainTensor::sum)
      .def("broadcast_to", &PlainTensor::broadcast_to);

  py::class_<circuits::CompositePolynomial>(m, "SignApproximation")
      .def(py::init([](double epsilon, double precision_bits, std::size_t stage_degree) {
             return circuits::sign_approximation(epsilon, precision_bits, stage_degree);
           }),
           py::arg("epsilon"), py::arg("precision_bits"), py::arg("stage_degree") = 15)
      .def("depth", &circuits::CompositePolynomial::depth);

  py::class_<CKKSTensor>(m, "CKKSTensor")
      .def_static("encrypt",
                  [](TensorContext::Ptr context, const PlainTensor& plain) {
                    return unlocked([&] { return CKKSTensor::encrypt(std::move(context), plain); });
                  })
      .def("decrypt", [](const CKKSTensor& t) { return unlocked([&] { return t.decrypt(); }); })
      .def("decrypt_with",
           [](const CKKSTensor& t, const rlwe::SecretKey& key) {
             return unlocked([&] { return t.decrypt(key); });
           })
      .def_property_readonly("shape", &CKKSTensor::shape)
      .def("level", &CKKSTensor::level)
      .def("context", [](const CKKSTensor& t) { return t.context(); })
      .def("copy", &CKKSTensor::copy)
      .def("add", [](const CKKSTensor& a,
                     const CKKSTensor& b) { return unlocked([&] { return a.add(b); }); })
      .def("add", [](const CKKSTensor& a,
                     const PlainTensor& b) { return unlocked([&] { return a.add(b); }); })
      .def("add", [](const CKKSTensor& a, double b) { return unlocked([&] { return a.add(b); }); })
      .def("sub", [](const CKKSTensor& a,
                     const CKKSTensor& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub", [](const CKKSTensor& a,
                     const PlainTensor& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub", [](const CKKSTensor& a, double b) { return unlocked([&] { return a.sub(b); }); })
      .def("mul", [](const CKKSTensor& a,
                     const CKKSTensor& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul", [](const CKKSTensor& a,
                     const PlainTensor& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul", [](const CKKSTensor& a, double b) { return unlocked([&] { return a.mul(b); }); })
      .def("negate", [](const CKKSTensor& a) { return unlocked([&] { return a.negate(); }); })
      .def("square", [](const CKKSTensor& a) { return unlocked([&] { return a.square(); }); })
      .def("polyval",
           [](const CKKSTensor& a, const std::vector<double>& coefficients) {
             return unlocked([&] { return a.polyval(coefficients); });
           })
      .def("sum", [](const CKKSTensor& a,
                     std::size_t axis) { return unlocked([&] { return a.sum(axis); }); })
      .def("reshape", [](const CKKSTensor& a,
                         const Shape& shape) { return unlocked([&] { return a.reshape(shape); }); })
      .def("transpose", [](const CKKSTensor& a) { return unlocked([&] { return a.transpose(); }); })
      .def("broadcast_to",
           [](const CKKSTensor& a, const Shape& shape) {
             return unlocked([&] { return a.broadcast_to(shape); });
           })
      .def("mm", [](const CKKSTensor& a,
                    const PlainTensor& b) { return unlocked([&] { return a.mm(b); }); })
      .def("mm", [](const CKKSTensor& a,
                    const CKKSTensor& b) { return unlocked([&] { return a.mm(b); }); })
      .def(
          "conv2d",
          [](const CKKSTensor& a, const PlainTensor& kernels, std::size_t stride) {
            return unlocked([&] { return a.conv2d(kernels, stride); });
          },
          py::arg("kernels"), py::arg("stride") = 1)
      .def("avg_pool2d",
           [](const CKKSTensor& a, std::size_t kernel, std::size_t stride) {
             return unlocked([&] { return a.avg_pool2d(kernel, stride); });
           })
      .def("relu",
           [](const CKKSTensor& a, const circuits::CompositePolynomial& sign) {
             return unlocked([&] { return a.relu(sign); });
           })
      .def("max",
           [](const CKKSTensor& a, const CKKSTensor& b, const circuits::CompositePolynomial& sign) {
             return unlocked([&] { return a.max(b, sign); });
           })
      .def("serialize",
           [](const CKKSTensor& t) { return to_bytes(unlocked([&] { return t.serialize(); })); })
      .def_static("load", [](TensorContext::Ptr context, const py::bytes& data) {
        const auto bytes = from_bytes(data);
        return unlocked([&] { return CKKSTensor::load(std::move(context), bytes); });
      });
}

}  // namespace heft::python
