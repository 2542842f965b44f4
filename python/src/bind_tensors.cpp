// PlainTensor, CKKSTensor and BFVTensor for Python (heft/tensor/
// plain_tensor.hpp, ckks_tensor.hpp, bfv_tensor.hpp): N-D tensors batched on
// their first axis, their arithmetic, products, convolutions and
// serialization.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "heft/circuits/approximation.hpp"
#include "heft/tensor/bfv_tensor.hpp"
#include "heft/tensor/ckks_tensor.hpp"
#include "heft/tensor/plain_tensor.hpp"

namespace heft::python {

using tensor::BFVTensor;
using tensor::CKKSTensor;
using tensor::PlainTensor;
using tensor::Shape;
using tensor::TensorContext;

namespace {

// What CKKSTensor and BFVTensor share: encryption, decryption, arithmetic
// with tensors, plain tensors and Scalar, polynomials with Coefficient
// coefficients, sums, shapes and serialization.
template <class T, class Scalar, class Coefficient>
void bind_tensor_common(py::class_<T>& c) {
  c.def_static("encrypt",
               [](TensorContext::Ptr context, const PlainTensor& plain) {
                 return unlocked([&] { return T::encrypt(std::move(context), plain); });
               })
      .def("decrypt", [](const T& t) { return unlocked([&] { return t.decrypt(); }); })
      .def("decrypt_with",
           [](const T& t, const rlwe::SecretKey& key) {
             return unlocked([&] { return t.decrypt(key); });
           })
      .def_property_readonly("shape", &T::shape)
      .def("context", [](const T& t) { return t.context(); })
      .def("copy", &T::copy)
      .def("add", [](const T& a, const T& b) { return unlocked([&] { return a.add(b); }); })
      .def("add",
           [](const T& a, const PlainTensor& b) { return unlocked([&] { return a.add(b); }); })
      .def("add", [](const T& a, Scalar b) { return unlocked([&] { return a.add(b); }); })
      .def("sub", [](const T& a, const T& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub",
           [](const T& a, const PlainTensor& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub", [](const T& a, Scalar b) { return unlocked([&] { return a.sub(b); }); })
      .def("mul", [](const T& a, const T& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul",
           [](const T& a, const PlainTensor& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul", [](const T& a, Scalar b) { return unlocked([&] { return a.mul(b); }); })
      .def("negate", [](const T& a) { return unlocked([&] { return a.negate(); }); })
      .def("square", [](const T& a) { return unlocked([&] { return a.square(); }); })
      .def("polyval",
           [](const T& a, const std::vector<Coefficient>& coefficients) {
             return unlocked([&] { return a.polyval(coefficients); });
           })
      .def("sum",
           [](const T& a, std::size_t axis) { return unlocked([&] { return a.sum(axis); }); })
      .def("reshape", [](const T& a,
                         const Shape& shape) { return unlocked([&] { return a.reshape(shape); }); })
      .def("transpose", [](const T& a) { return unlocked([&] { return a.transpose(); }); })
      .def("broadcast_to",
           [](const T& a, const Shape& shape) {
             return unlocked([&] { return a.broadcast_to(shape); });
           })
      .def("serialize",
           [](const T& t) { return to_bytes(unlocked([&] { return t.serialize(); })); })
      .def_static("load", [](TensorContext::Ptr context, const py::bytes& data) {
        const auto bytes = from_bytes(data);
        return unlocked([&] { return T::load(std::move(context), bytes); });
      });
}

}  // namespace

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

  py::class_<CKKSTensor> ckks(m, "CKKSTensor");
  bind_tensor_common<CKKSTensor, double, double>(ckks);
  ckks.def("level", &CKKSTensor::level)
      .def("rotate", [](const CKKSTensor& a,
                        int64_t steps) { return unlocked([&] { return a.rotate(steps); }); })
      .def("rotate_hoisted",
           [](const CKKSTensor& a, const std::vector<int64_t>& steps) {
             return unlocked([&] { return a.rotate_hoisted(steps); });
           })
      .def("take", [](const CKKSTensor& a, std::size_t axis,
                      const std::vector<std::size_t>& indices) { return a.take(axis, indices); })
      .def("bootstrap", [](const CKKSTensor& a) { return unlocked([&] { return a.bootstrap(); }); })
      .def("refresh_for",
           [](const CKKSTensor& a, std::size_t levels) {
             return unlocked([&] { return a.refresh_for(levels); });
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
           });

  py::class_<BFVTensor> bfv(m, "BFVTensor");
  bind_tensor_common<BFVTensor, int64_t, int64_t>(bfv);
}

}  // namespace heft::python
