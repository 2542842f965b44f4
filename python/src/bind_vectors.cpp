// CKKSVector and BFVVector for Python (heft/tensor/ckks_vector.hpp,
// bfv_vector.hpp, images.hpp): encryption, arithmetic with vectors, plain
// lists and scalars, products, images, serialization. Work runs without
// the GIL, so Python threads and heft's own pool run beside it.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "heft/tensor/bfv_vector.hpp"
#include "heft/tensor/ckks_vector.hpp"
#include "heft/tensor/images.hpp"

namespace heft::python {

using tensor::BFVVector;
using tensor::CKKSVector;
using tensor::TensorContext;

namespace {

// The arithmetic both vector kinds share: T with T, with a plain list of
// V, with a scalar V; in place too.
// A numpy array of V read in place (converted once if its type or layout
// differ): numpy operands skip the element-by-element list conversion.
template <class V>
using Array = py::array_t<V, py::array::c_style | py::array::forcecast>;

template <class V>
std::span<const V> values_of(const Array<V>& array) {
  return {array.data(), static_cast<std::size_t>(array.size())};
}

// The plain-operand forms taking numpy arrays; registered before the list
// forms so that an array takes them (pybind11 tries overloads in order).
template <class T, class V>
void bind_array_operands(py::class_<T>& c) {
  c.def("add",
        [](const T& a, const Array<V>& b) { return unlocked([&] { return a.add(values_of(b)); }); })
      .def("sub", [](const T& a,
                     const Array<V>& b) { return unlocked([&] { return a.sub(values_of(b)); }); })
      .def("mul", [](const T& a,
                     const Array<V>& b) { return unlocked([&] { return a.mul(values_of(b)); }); })
      .def("add_",
           [](T& a, const Array<V>& b) { unlocked([&] { return &a.add_inplace(values_of(b)); }); })
      .def("sub_",
           [](T& a, const Array<V>& b) { unlocked([&] { return &a.sub_inplace(values_of(b)); }); })
      .def("mul_",
           [](T& a, const Array<V>& b) { unlocked([&] { return &a.mul_inplace(values_of(b)); }); })
      .def("dot", [](const T& a, const Array<V>& b) {
        return unlocked([&] { return a.dot(values_of(b)); });
      });
}

template <class T, class V>
void bind_arithmetic(py::class_<T>& c) {
  using Plain = std::vector<V>;
  bind_array_operands<T, V>(c);
  c.def("add", [](const T& a, const T& b) { return unlocked([&] { return a.add(b); }); })
      .def("add", [](const T& a, const Plain& b) { return unlocked([&] { return a.add(b); }); })
      .def("add", [](const T& a, V b) { return unlocked([&] { return a.add(b); }); })
      .def("sub", [](const T& a, const T& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub", [](const T& a, const Plain& b) { return unlocked([&] { return a.sub(b); }); })
      .def("sub", [](const T& a, V b) { return unlocked([&] { return a.sub(b); }); })
      .def("mul", [](const T& a, const T& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul", [](const T& a, const Plain& b) { return unlocked([&] { return a.mul(b); }); })
      .def("mul", [](const T& a, V b) { return unlocked([&] { return a.mul(b); }); })
      .def("add_", [](T& a, const T& b) { unlocked([&] { return &a.add_inplace(b); }); })
      .def("add_", [](T& a, const Plain& b) { unlocked([&] { return &a.add_inplace(b); }); })
      .def("add_", [](T& a, V b) { unlocked([&] { return &a.add_inplace(b); }); })
      .def("sub_", [](T& a, const T& b) { unlocked([&] { return &a.sub_inplace(b); }); })
      .def("sub_", [](T& a, const Plain& b) { unlocked([&] { return &a.sub_inplace(b); }); })
      .def("sub_", [](T& a, V b) { unlocked([&] { return &a.sub_inplace(b); }); })
      .def("mul_", [](T& a, const T& b) { unlocked([&] { return &a.mul_inplace(b); }); })
      .def("mul_", [](T& a, const Plain& b) { unlocked([&] { return &a.mul_inplace(b); }); })
      .def("mul_", [](T& a, V b) { unlocked([&] { return &a.mul_inplace(b); }); })
      .def("negate", [](const T& a) { return unlocked([&] { return a.negate(); }); })
      .def("square", [](const T& a) { return unlocked([&] { return a.square(); }); })
      .def("pow", [](const T& a, unsigned k) { return unlocked([&] { return a.pow(k); }); })
      .def("sum", [](const T& a) { return unlocked([&] { return a.sum(); }); })
      .def("dot", [](const T& a, const T& b) { return unlocked([&] { return a.dot(b); }); })
      .def("dot", [](const T& a, const Plain& b) { return unlocked([&] { return a.dot(b); }); })
      .def("matmul",
           [](const T& a, const std::vector<Plain>& m) {
             return unlocked([&] { return a.matmul(m); });
           })
      .def("polyval",
           [](const T& a, const Plain& coefficients) {
             return unlocked([&] { return a.polyval(coefficients); });
           })
      .def("size", &T::size)
      .def("copy", &T::copy)
      .def("context", [](const T& a) { return a.context(); })
      .def("decrypt", [](const T& a) { return unlocked([&] { return a.decrypt(); }); })
      .def("decrypt_with",
           [](const T& a, const rlwe::SecretKey& key) {
             return unlocked([&] { return a.decrypt(key); });
           })
      .def("serialize",
           [](const T& a) { return to_bytes(unlocked([&] { return a.serialize(); })); })
      .def_static("load", [](TensorContext::Ptr context, const py::bytes& data) {
        const auto bytes = from_bytes(data);
        return unlocked([&] { return T::load(std::move(context), bytes); });
      });
}

}  // namespace

void bind_vectors(py::module_& m) {
  py::class_<CKKSVector> ckks(m, "CKKSVector");
  ckks.def_static(
          "encrypt",
          [](TensorContext::Ptr context, const Array<double>& values, double scale) {
            return unlocked(
                [&] { return CKKSVector::encrypt(std::move(context), values_of(values), scale); });
          },
          py::arg("context"), py::arg("values"), py::arg("scale") = 0.0)
      .def_static(
          "encrypt",
          [](TensorContext::Ptr context, const std::vector<double>& values, double scale) {
            return unlocked([&] { return CKKSVector::encrypt(std::move(context), values, scale); });
          },
          py::arg("context"), py::arg("values"), py::arg("scale") = 0.0)
      .def("level", &CKKSVector::level)
      .def("scale", &CKKSVector::scale)
      .def("measure_noise_bits",
           [](const CKKSVector& a, const std::vector<double>& expected) {
             return unlocked([&] { return a.measure_noise_bits(expected); });
           })
      .def("conv2d_im2col",
           [](const CKKSVector& a, const std::vector<std::vector<double>>& kernel,
              std::size_t windows) {
             return unlocked([&] { return a.conv2d_im2col(kernel, windows); });
           })
      .def("rotate", [](const CKKSVector& a,
                        int64_t steps) { return unlocked([&] { return a.rotate(steps); }); })
      .def("truncated",
           [](const CKKSVector& a, std::size_t size) {
             return unlocked([&] { return a.truncated(size); });
           })
      .def("slice", [](const CKKSVector& a, std::size_t begin,
                       std::size_t end) { return unlocked([&] { return a.slice(begin, end); }); })
      .def("bootstrap", [](const CKKSVector& a) { return unlocked([&] { return a.bootstrap(); }); })
      .def("refresh_for",
           [](const CKKSVector& a, std::size_t levels) {
             return unlocked([&] { return a.refresh_for(levels); });
           })
      .def("linear_transform", [](const CKKSVector& a, const circuits::LinearTransform& m) {
        return unlocked([&] { return a.linear_transform(m); });
      });
  bind_arithmetic<CKKSVector, double>(ckks);

  py::class_<BFVVector> bfv(m, "BFVVector");
  bfv.def_static("encrypt", [](TensorContext::Ptr context, const std::vector<int64_t>& values) {
    return unlocked([&] { return BFVVector::encrypt(std::move(context), values); });
  });
  bfv.def_static("pack_vectors", [](const std::vector<const BFVVector*>& vectors) {
    std::vector<BFVVector> copies;
    for (const BFVVector* v : vectors)
      copies.push_back(v->copy());
    return unlocked([&] { return BFVVector::pack_vectors(copies); });
  });
  bind_arithmetic<BFVVector, int64_t>(bfv);

  m.def("im2col_encoding", [](TensorContext::Ptr context, const tensor::Matrix& image,
                              std::size_t kernel_rows, std::size_t kernel_cols,
                              std::size_t stride) {
    auto encoding = unlocked([&] {
      return tensor::im2col_encoding(std::move(context), image, kernel_rows, kernel_cols, stride);
    });
    return py::make_tuple(std::move(encoding.vector), encoding.windows);
  });
  m.def("pack_vectors", [](const std::vector<const CKKSVector*>& vectors) {
    std::vector<CKKSVector> copies;
    for (const CKKSVector* v : vectors)
      copies.push_back(v->copy());
    return unlocked([&] { return tensor::pack_vectors(copies); });
  });
}

}  // namespace heft::python
