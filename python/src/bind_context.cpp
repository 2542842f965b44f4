// TensorContext for Python: made from TenSEAL's arguments, its flags, keys
// and serialization (heft/tensor/context.hpp).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <complex>
#include <map>

#include "bindings.hpp"
#include "heft/circuits/bootstrap_presets.hpp"
#include "heft/tensor/context.hpp"
#include "heft/util/error.hpp"
#include "heft/util/memory_pool.hpp"

namespace heft::python {

using tensor::TensorContext;

void bind_context(py::module_& m) {
  py::enum_<tensor::Scheme>(m, "Scheme")
      .value("CKKS", tensor::Scheme::ckks)
      .value("BFV", tensor::Scheme::bfv);

  // A secret key kept aside (TenSEAL's context.secret_key()), for
  // decrypt(secret_key) once the context is public.
  py::class_<rlwe::SecretKey>(m, "SecretKey");

  py::class_<TensorContext, TensorContext::Ptr>(m, "TensorContext")
      .def_static(
          "create",
          [](tensor::Scheme scheme, uint64_t degree, uint64_t plain_modulus,
             std::vector<int> bit_sizes, double global_scale, std::size_t n_threads) {
            tensor::TenSEALArguments arguments;
            arguments.scheme = scheme;
            arguments.poly_modulus_degree = degree;
            arguments.plain_modulus = plain_modulus;
            arguments.coeff_mod_bit_sizes = std::move(bit_sizes);
            arguments.global_scale = global_scale;
            arguments.n_threads = n_threads;
            py::gil_scoped_release release;
            return TensorContext::create(arguments);
          },
          py::arg("scheme"), py::arg("poly_modulus_degree"), py::arg("plain_modulus") = 0,
          py::arg("coeff_mod_bit_sizes") = std::vector<int>{}, py::arg("global_scale") = 0.0,
          py::arg("n_threads") = 0)
      .def_static(
          "create_bootstrappable",
          [](const std::string& preset, bool slots_to_coeffs_first, bool real_slots,
             std::size_t n_threads) {
            tensor::BootstrapOptions options;
            options.order = slots_to_coeffs_first ? circuits::BootstrapOrder::slots_to_coeffs_first
                                                  : circuits::BootstrapOrder::coeffs_to_slots_first;
            options.real_slots = real_slots;
            options.n_threads = n_threads;
            py::gil_scoped_release release;
            return TensorContext::create_bootstrappable(preset, options);
          },
          py::arg("preset"), py::arg("slots_to_coeffs_first") = false, py::arg("real_slots") = true,
          py::arg("n_threads") = 0)
      .def("is_bootstrappable", &TensorContext::is_bootstrappable)
      .def("has_bootstrap_keys", &TensorContext::has_bootstrap_keys)
      .def_property_readonly("encryption_level", &TensorContext::encryption_level)
      .def("bootstrap_key_bytes",
           [](const TensorContext& c) { return unlocked([&] { return c.bootstrap_key_bytes(); }); })
      .def(
          "generate_bootstrap_keys",
          [](TensorContext& c, const std::function<void(std::size_t, std::size_t)>& progress) {
            circuits::KeyProgress report;
            // The callback is Python: it runs with the GIL taken back.
            if (progress)
              report = [&progress](std::size_t done, std::size_t total) {
                py::gil_scoped_acquire acquire;
                progress(done, total);
              };
            py::gil_scoped_release release;
            c.generate_bootstrap_keys(report);
          },
          py::arg("progress") = nullptr)
      .def_property_readonly("scheme", &TensorContext::scheme)
      .def_property_readonly("slot_count", &TensorContext::slot_count)
      .def_property("global_scale", &TensorContext::global_scale, &TensorContext::set_global_scale)
      .def_property("auto_relin", &TensorContext::auto_relin, &TensorContext::set_auto_relin)
      .def_property("auto_rescale", &TensorContext::auto_rescale, &TensorContext::set_auto_rescale)
      .def_property("auto_mod_switch", &TensorContext::auto_mod_switch,
                    &TensorContext::set_auto_mod_switch)
      .def_property("auto_bootstrap", &TensorContext::auto_bootstrap,
                    &TensorContext::set_auto_bootstrap)
      .def("is_private", &TensorContext::is_private)
      .def("is_public", &TensorContext::is_public)
      .def("has_public_key", &TensorContext::has_public_key)
      .def("secret_key", [](const TensorContext& c) { return c.secret_key("secret_key").clone(); })
      .def("has_relin_keys", &TensorContext::has_relin_keys)
      .def("has_galois_keys", &TensorContext::has_galois_keys)
      .def("generate_galois_keys",
           [](TensorContext& c) {
             py::gil_scoped_release release;
             c.generate_galois_keys();
           })
      .def(
          "generate_galois_keys_for",
          [](TensorContext& c, const std::vector<int64_t>& steps, bool swap,
             std::optional<std::size_t> max_level) {
            py::gil_scoped_release release;
            c.generate_galois_keys(steps, swap, max_level);
          },
          py::arg("steps"), py::arg("include_swap") = false, py::arg("max_level") = py::none())
      .def("generate_relin_keys",
           [](TensorContext& c) {
             py::gil_scoped_release release;
             c.generate_relin_keys();
           })
      .def(
          "set_noise_flooding",
          [](TensorContext& c, double noise_bits, int statistical_security, uint64_t decryptions) {
            c.set_noise_flooding(
                ckks::FloodingOptions{noise_bits, statistical_security, decryptions});
          },
          py::arg("noise_bits"), py::arg("statistical_security") = 30, py::arg("decryptions") = 1)
      .def("clear_noise_flooding", [](TensorContext& c) { c.set_noise_flooding(std::nullopt); })
      .def("noise_flooding",
           [](const TensorContext& c) -> py::object {
             const auto& options = c.noise_flooding();
             if (!options) return py::none();
             py::dict out;
             out["noise_bits"] = options->noise_bits;
             out["statistical_security"] = options->statistical_security;
             out["decryptions"] = options->decryptions;
             out["flooding_bits"] = ckks::flooding_bits(*options);
             return std::move(out);
           })
      .def("make_context_public", &TensorContext::make_context_public,
           py::arg("generate_galois_keys") = false, py::arg("generate_relin_keys") = false)
      .def(
          "serialize",
          [](const TensorContext& c, bool public_key, bool secret_key, bool galois_keys,
             bool relin_keys, bool bootstrap_keys) {
            TensorContext::SaveParts parts{public_key, secret_key, galois_keys, relin_keys,
                                           bootstrap_keys};
            rlwe::Bytes bytes;
            {
              py::gil_scoped_release release;
              bytes = c.serialize(parts);
            }
            return to_bytes(bytes);
          },
          py::arg("save_public_key") = true, py::arg("save_secret_key") = true,
          py::arg("save_galois_keys") = true, py::arg("save_relin_keys") = true,
          py::arg("save_bootstrap_keys") = true)
      .def_static(
          "load",
          [](const py::bytes& data, bool allow_insecure) {
            const auto bytes = from_bytes(data);
            rlwe::LoadOptions options;
            options.allow_insecure_parameters = allow_insecure;
            // Bootstrapping keys at N = 2^16 pass the default bound of 4 GiB;
            // no payload needs more than a few times the bytes given.
            options.max_bytes = std::max(options.max_bytes, 4 * bytes.size());
            py::gil_scoped_release release;
            return TensorContext::load(bytes, options);
          },
          py::arg("data"), py::arg("allow_insecure_parameters") = false);

  m.def("bootstrap_preset_names", &circuits::bootstrap_preset_names);
  m.def("release_idle_memory", [] { return unlocked([] { return release_idle_memory(); }); });

  // y = M x by diagonals, prepared once (circuits::LinearTransform): the
  // building block of convolutions over channels packed in blocks of slots.
  py::class_<circuits::LinearTransform>(m, "LinearTransform")
      .def(py::init([](const TensorContext::Ptr& context, const py::dict& diagonals,
                       std::size_t level, std::size_t baby_steps) {
             // numpy arrays (or sequences) of doubles, read without Python
             // floats in between: a convolution's diagonals are megabytes.
             std::map<int64_t, std::vector<std::complex<double>>> complex_diagonals;
             for (const auto& [key, value] : diagonals) {
               const auto array =
                   py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
               if (!array || array.ndim() != 1)
                 throw InvalidArgument("LinearTransform: each diagonal must be a 1-D array");
               auto& out = complex_diagonals[key.cast<int64_t>()];
               out.assign(array.data(), array.data() + array.size());
             }
             circuits::LinearTransformOptions options;
             options.level = level;
             options.slots = context->slot_count();
             options.baby_steps = baby_steps;
             py::gil_scoped_release release;
             return circuits::LinearTransform::from_diagonals(context->ckks_encoder(),
                                                              complex_diagonals, options);
           }),
           py::arg("context"), py::arg("diagonals"), py::arg("level"), py::arg("baby_steps") = 0)
      .def("rotation_steps", &circuits::LinearTransform::rotation_steps)
      .def_property_readonly("level", &circuits::LinearTransform::level)
      .def_property_readonly("diagonal_count", &circuits::LinearTransform::diagonal_count)
      .def_property_readonly("baby_steps", &circuits::LinearTransform::baby_steps);
}

}  // namespace heft::python
