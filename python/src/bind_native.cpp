// heft.native: the scheme layer under the tensor layer, for Python users who
// want SEAL's or OpenFHE's level of control (issue 39). Parameters (by hand
// or from heft's helpers), the context built from them, key generation, the
// CKKS encoder and the BFV/BGV batch encoder (numpy in and out), encryptors,
// decryptors and the three evaluators, on heft's C++ API as it is.
//
// Every object that lives under a context carries it, so it can be saved
// (heft's serialization, docs/format.md) and pickled. A pickle holds the
// parameters beside the object's bytes; unpickling attaches the object to
// the live context of those parameters that was made first in this process
// (keys and ciphertexts unpickled together fit one another), or loads one.
// Work runs with the GIL released.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "heft/rlwe/encryptor.hpp"
#include "heft/rlwe/keys.hpp"
#include "heft/rlwe/parameters.hpp"
#include "heft/rlwe/serialization.hpp"
#include "heft/schemes/batch_encoder.hpp"
#include "heft/schemes/bfv/encryptor.hpp"
#include "heft/schemes/bfv/evaluator.hpp"
#include "heft/schemes/bgv/encryptor.hpp"
#include "heft/schemes/bgv/evaluator.hpp"
#include "heft/schemes/ckks/encoder.hpp"
#include "heft/schemes/ckks/evaluator.hpp"
#include "heft/schemes/ckks/parameter_helper.hpp"
#include "heft/schemes/integer_parameters.hpp"
#include "heft/schemes/serialization.hpp"
#include "heft/util/error.hpp"

namespace heft::python {

namespace {

using rlwe::ContextPtr;
using Release = py::call_guard<py::gil_scoped_release>;

// ---- the objects as Python sees them ----

// A context handle (heft's contexts are shared and compared by identity).
struct NativeContext {
  ContextPtr ptr;
};

// An object of heft's that does not know its context, with it: what it needs
// to be saved, and what results of operations on it are made under.
template <class T>
struct WithContext {
  ContextPtr context;
  T value;
};

using Ciphertext = WithContext<rlwe::Ciphertext>;
using Plaintext = WithContext<rlwe::Plaintext>;
using IntegerPlaintext = WithContext<schemes::IntegerPlaintext>;
using CKKSEncryptor = WithContext<rlwe::Encryptor>;
using CKKSDecryptor = WithContext<rlwe::Decryptor>;
using BFVEncryptor = WithContext<bfv::Encryptor>;
using BFVDecryptor = WithContext<bfv::Decryptor>;
using BGVEncryptor = WithContext<bgv::Encryptor>;
using BGVDecryptor = WithContext<bgv::Decryptor>;
using BatchEncoder = WithContext<schemes::BatchEncoder>;

// rlwe::SecretKey is _heft.SecretKey already (the tensor layer's, without
// methods); the native one is its own type.
struct SecretKey {
  rlwe::SecretKey key;
};

// The CKKS encoder with the default scale of each level (the evaluator's
// scale_at: what multiply-then-rescale makes), empty when the parameters
// have no nominal scale.
struct CKKSEncoder {
  ckks::Encoder encoder;
  std::vector<double> scales;
};

}  // namespace

}  // namespace heft::python

// pybind11 takes a struct holding a std::vector of move-only polynomials for
// copyable (std::vector's copy constructor is declared either way) and
// would instantiate the copy: these are moved, never copied.
namespace pybind11::detail {
template <class T>
struct is_copy_constructible<heft::python::WithContext<T>> : std::false_type {};
template <>
struct is_copy_constructible<heft::rlwe::RelinKey> : std::false_type {};
template <>
struct is_copy_constructible<heft::rlwe::GaloisKeys> : std::false_type {};
}  // namespace pybind11::detail

namespace heft::python {

namespace {

// ---- contexts by parameters, for unpickling ----

// The first live context made or loaded here for each parameter set.
std::mutex registry_mutex;
std::map<rlwe::ParameterHash, std::weak_ptr<const rlwe::Context>> registry;

ContextPtr remember(ContextPtr context) {
  const auto hash = rlwe::parameter_hash(context->parameters());
  std::lock_guard lock(registry_mutex);
  std::erase_if(registry, [](const auto& entry) { return entry.second.expired(); });
  registry.try_emplace(hash, context);
  return context;
}

rlwe::LoadOptions load_options(bool allow_insecure) {
  rlwe::LoadOptions options;
  options.allow_insecure_parameters = allow_insecure;
  return options;
}

bool insecure(const rlwe::Parameters& parameters) {
  return parameters.security == rlwe::SecurityLevel::none;
}

ContextPtr context_for(std::span<const uint8_t> parameter_bytes, bool allow_insecure) {
  const auto parameters = rlwe::load_parameters(parameter_bytes, load_options(allow_insecure));
  {
    std::lock_guard lock(registry_mutex);
    const auto found = registry.find(rlwe::parameter_hash(parameters));
    if (found != registry.end())
      if (auto live = found->second.lock()) return live;
  }
  return remember(rlwe::Context::create(parameters));
}

// ---- saving and loading, one overload per type ----

const ContextPtr& context_of(const rlwe::PublicKey& key) {
  return key.context;
}
const ContextPtr& context_of(const rlwe::RelinKey& key) {
  return key.key.context;
}
const ContextPtr& context_of(const rlwe::GaloisKeys& keys) {
  return keys.context();
}
const ContextPtr& context_of(const SecretKey& key) {
  return key.key.context();
}
template <class T>
const ContextPtr& context_of(const WithContext<T>& object) {
  return object.context;
}

rlwe::Bytes save_object(const rlwe::PublicKey& key, const rlwe::SaveOptions& options) {
  return rlwe::save(key, options);
}
rlwe::Bytes save_object(const rlwe::RelinKey& key, const rlwe::SaveOptions& options) {
  return rlwe::save(key, options);
}
rlwe::Bytes save_object(const rlwe::GaloisKeys& keys, const rlwe::SaveOptions& options) {
  return rlwe::save(keys, options);
}
rlwe::Bytes save_object(const SecretKey& key, const rlwe::SaveOptions& options) {
  return rlwe::save(key.key, options);
}
template <class T>
rlwe::Bytes save_object(const WithContext<T>& object, const rlwe::SaveOptions& options) {
  if constexpr (std::is_same_v<T, schemes::IntegerPlaintext>)
    return schemes::save(*object.context, object.value, options);
  else
    return rlwe::save(*object.context, object.value, options);
}

template <class T>
struct Tag {};

rlwe::PublicKey load_object(Tag<rlwe::PublicKey>, const ContextPtr& c, std::span<const uint8_t> b) {
  return rlwe::load_public_key(c, b);
}
rlwe::RelinKey load_object(Tag<rlwe::RelinKey>, const ContextPtr& c, std::span<const uint8_t> b) {
  return rlwe::load_relin_key(c, b);
}
rlwe::GaloisKeys load_object(Tag<rlwe::GaloisKeys>, const ContextPtr& c,
                             std::span<const uint8_t> b) {
  return rlwe::load_galois_keys(c, b);
}
SecretKey load_object(Tag<SecretKey>, const ContextPtr& c, std::span<const uint8_t> b) {
  return {rlwe::load_secret_key(c, b)};
}
Ciphertext load_object(Tag<Ciphertext>, const ContextPtr& c, std::span<const uint8_t> b) {
  return {c, rlwe::load_ciphertext(c, b)};
}
Plaintext load_object(Tag<Plaintext>, const ContextPtr& c, std::span<const uint8_t> b) {
  return {c, rlwe::load_plaintext(c, b)};
}
IntegerPlaintext load_object(Tag<IntegerPlaintext>, const ContextPtr& c,
                             std::span<const uint8_t> b) {
  return {c, schemes::load_integer_plaintext(c, b)};
}

rlwe::SaveOptions save_options(rlwe::Compression compression) {
  rlwe::SaveOptions options;
  options.compression = compression;
  return options;
}

// serialize(compression) and load(context, data) on T; and pickling, whose
// state is (the context's parameters, the object's bytes, whether the
// parameters are insecure test ones), unless T must not leave its process
// unasked (a secret key: serialize() it explicitly).
template <class T, class... Options>
void bind_bytes(py::class_<T, Options...>& c, bool picklable = true) {
  c.def(
       "serialize",
       [](const T& object, rlwe::Compression compression) {
         rlwe::Bytes bytes;
         {
           py::gil_scoped_release release;
           bytes = save_object(object, save_options(compression));
         }
         return to_bytes(bytes);
       },
       py::arg("compression") = rlwe::Compression::none,
       "The object's bytes in heft's format (docs/format.md); zstd where it makes them "
       "smaller. Load them with load(context, data).")
      .def_static(
          "load",
          [](const NativeContext& context, const py::bytes& data) {
            const auto bytes = from_bytes(data);
            py::gil_scoped_release release;
            return load_object(Tag<T>{}, context.ptr, bytes);
          },
          py::arg("context"), py::arg("data"),
          "The object serialize() saved, under `context` (MismatchError for bytes made "
          "under other parameters, FormatError for malformed ones).");
  if (!picklable) {
    c.def("__getstate__", [](const T&) -> py::tuple {
      throw py::type_error(
          "a secret key does not pickle (it must not leave the client "
          "unasked): use serialize() and load(context, data)");
    });
    return;
  }
  c.def(py::pickle(
      [](const T& object) {
        const auto& context = context_of(object);
        rlwe::Bytes parameters, bytes;
        {
          py::gil_scoped_release release;
          parameters = rlwe::save(*context);
          bytes = save_object(object, {});
        }
        return py::make_tuple(to_bytes(parameters), to_bytes(bytes),
                              insecure(context->parameters()));
      },
      [](const py::tuple& state) {
        if (state.size() != 3) throw FormatError("unpickling: a state of 3 items expected");
        const auto parameters = from_bytes(state[0].cast<py::bytes>());
        const auto bytes = from_bytes(state[1].cast<py::bytes>());
        const bool allow_insecure = state[2].cast<bool>();
        py::gil_scoped_release release;
        return load_object(Tag<T>{}, context_for(parameters, allow_insecure), bytes);
      }));
}

// ---- numpy ----

// What numpy.asarray takes (an array, a list, a scalar), as an array; its
// name in signatures is the annotation Python code uses for it.
struct ArrayLike {
  py::array array;
};

}  // namespace

}  // namespace heft::python

namespace pybind11::detail {
template <>
struct type_caster<heft::python::ArrayLike> {
  PYBIND11_TYPE_CASTER(heft::python::ArrayLike, const_name("numpy.typing.ArrayLike"));
  bool load(handle source, bool) {
    value.array = array::ensure(source);
    return static_cast<bool>(value.array);
  }
};
}  // namespace pybind11::detail

namespace heft::python {

namespace {

// `values` as a 1-D array, InvalidArgument naming `operation` otherwise.
void require_vector(const py::array& values, const char* operation) {
  if (values.ndim() != 1)
    throw InvalidArgument(std::string(operation) + ": a 1-D array expected, got " +
                          std::to_string(values.ndim()) + " dimensions");
}

template <class T>
std::vector<T> to_vector(const py::array& values) {
  const auto typed = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(values);
  if (!typed) throw py::error_already_set();
  return {typed.data(), typed.data() + typed.size()};
}

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& values) {
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

// Integers in (-t, t), taken mod t.
std::vector<uint64_t> integers_mod(const py::array& values, uint64_t t, const char* operation) {
  require_vector(values, operation);
  const char kind = values.dtype().kind();
  if (kind != 'i' && kind != 'u' && kind != 'b')
    throw InvalidArgument(std::string(operation) + ": integer values expected, got dtype " +
                          std::string(py::str(values.dtype())));
  std::vector<uint64_t> out;
  if (kind == 'u') {
    out = to_vector<uint64_t>(values);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (out[i] >= t)
        throw InvalidArgument(std::string(operation) + ": value " + std::to_string(out[i]) +
                              " at index " + std::to_string(i) +
                              " is not below t = " + std::to_string(t));
    return out;
  }
  const auto signed_values = to_vector<int64_t>(values);
  out.resize(signed_values.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int64_t v = signed_values[i];
    const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : v;
    if (magnitude >= t)
      throw InvalidArgument(std::string(operation) + ": value " + std::to_string(v) + " at index " +
                            std::to_string(i) + " is outside (-t, t) for t = " + std::to_string(t));
    out[i] = v < 0 ? t - magnitude : magnitude;
  }
  return out;
}

// A Python integer (any sign) mod t.
uint64_t scalar_mod(int64_t value, uint64_t t) {
  const int64_t r = value % static_cast<int64_t>(t);
  return static_cast<uint64_t>(r < 0 ? r + static_cast<int64_t>(t) : r);
}

// ---- parameters ----

rlwe::Parameters make(uint64_t degree, const std::vector<int>& ciphertext_bits,
                      const std::vector<int>& special_bits, uint64_t plain_modulus, double scale,
                      std::size_t dnum, rlwe::SecurityLevel security, std::size_t hamming_weight) {
  auto parameters = rlwe::make_parameters(degree, ciphertext_bits, special_bits, dnum, security);
  parameters.plain_modulus = plain_modulus;
  parameters.scale = scale;
  if (hamming_weight != 0) parameters.secret = {rlwe::SecretKind::sparse_ternary, hamming_weight};
  parameters.validate();
  return parameters;
}

// SEAL's convention: the last of coeff_mod_bit_sizes is the special prime
// (with one size, there is none: no relinearization or rotations).
std::pair<std::vector<int>, std::vector<int>> split_seal(std::vector<int> bits) {
  if (bits.empty()) throw InvalidArgument("coeff_mod_bit_sizes: at least one size expected");
  std::vector<int> special;
  if (bits.size() > 1) {
    special.push_back(bits.back());
    bits.pop_back();
  }
  return {bits, special};
}

rlwe::Parameters seal_style(uint64_t degree, const std::vector<int>& coeff_mod_bit_sizes,
                            uint64_t plain_modulus, double scale, rlwe::SecurityLevel security) {
  const auto [ciphertext, special] = split_seal(coeff_mod_bit_sizes);
  return make(degree, ciphertext, special, plain_modulus, scale, 0, security, 0);
}

// Parameters.<name>: BFV or BGV parameters as SEAL takes them (the same set
// for both: heft's parameters do not name a scheme).
void def_integer_parameters(py::class_<rlwe::Parameters>& c, const char* name, const char* doc) {
  c.def_static(
      name,
      [](uint64_t degree, const std::vector<int>& bits, uint64_t t, rlwe::SecurityLevel security) {
        return seal_style(degree, bits, t, 0.0, security);
      },
      py::arg("poly_modulus_degree"), py::arg("coeff_mod_bit_sizes"), py::arg("plain_modulus"),
      py::arg("security") = rlwe::SecurityLevel::classic128, doc);
}

// Parameters.<name>: heft's BFV/BGV parameter helper for `scheme`.
void def_suggest_integer(py::class_<rlwe::Parameters>& c, const char* name,
                         schemes::IntegerScheme scheme, const char* doc) {
  c.def_static(
      name,
      [scheme](std::size_t depth, int plain_bits, uint64_t plain_modulus, bool batching,
               rlwe::SecurityLevel security) {
        schemes::IntegerParameterRequest request;
        request.scheme = scheme;
        request.depth = depth;
        request.plain_bits = plain_bits;
        request.plain_modulus = plain_modulus;
        request.batching = batching;
        request.security = security;
        return schemes::suggest_integer_parameters(request);
      },
      py::arg("depth") = 1, py::arg("plain_bits") = 17, py::arg("plain_modulus") = 0,
      py::arg("batching") = true, py::arg("security") = rlwe::SecurityLevel::classic128, doc);
}

void bind_parameters(py::module_& m) {
  py::enum_<rlwe::SecurityLevel>(m, "SecurityLevel",
                                 "Security levels of the HE Standard (classical attacks); none "
                                 "checks nothing: tests only, never real data.")
      .value("none", rlwe::SecurityLevel::none)
      .value("classic128", rlwe::SecurityLevel::classic128)
      .value("classic192", rlwe::SecurityLevel::classic192)
      .value("classic256", rlwe::SecurityLevel::classic256);
  m.def("max_log_qp", &rlwe::max_log_qp, py::arg("poly_modulus_degree"), py::arg("security"),
        "The largest log2(QP) (sum of all primes' bit sizes) `security` allows at this ring "
        "degree (InvalidArgument for SecurityLevel.none).");

  using rlwe::Parameters;
  py::class_<Parameters> c(m, "Parameters",
                           "A validated RLWE parameter set: ring degree N, ciphertext primes "
                           "q_0..q_{L-1}, special primes for key switching, the CKKS scale or "
                           "the BFV/BGV plaintext modulus t, and the security level it meets. "
                           "Immutable; made by hand (the constructor, ckks, bfv, bgv) or by "
                           "heft's helpers (suggest_ckks, suggest_bfv, suggest_bgv).");
  c.def(py::init(&make), py::arg("poly_modulus_degree"), py::arg("ciphertext_bit_sizes"),
        py::arg("special_bit_sizes") = std::vector<int>{}, py::arg("plain_modulus") = 0,
        py::arg("scale") = 0.0, py::arg("dnum") = 0,
        py::arg("security") = rlwe::SecurityLevel::classic128, py::arg("secret_hamming_weight") = 0,
        "Fresh NTT primes of the given bit sizes (ciphertext primes q_0, q_1, ...; special "
        "primes), a CKKS scale or a BFV/BGV plaintext modulus, dnum key-switching digits "
        "(0: ceil(L / K)), a sparse ternary secret of that Hamming weight (0: uniform "
        "ternary). Validated against `security` (InvalidArgument with the reason).")
      .def_static(
          "ckks",
          [](uint64_t degree, const std::vector<int>& bits, std::optional<double> scale,
             rlwe::SecurityLevel security) {
            const auto ciphertext = split_seal(bits).first;
            // Default: the size of the rescaling primes (of q_0's half with one prime).
            const int scale_bits = ciphertext.size() > 1 ? ciphertext.back() : ciphertext[0] / 2;
            return seal_style(degree, bits, 0, scale.value_or(std::ldexp(1.0, scale_bits)),
                              security);
          },
          py::arg("poly_modulus_degree"), py::arg("coeff_mod_bit_sizes"),
          py::arg("scale") = py::none(), py::arg("security") = rlwe::SecurityLevel::classic128,
          "CKKS parameters as SEAL takes them: the last of coeff_mod_bit_sizes is the special "
          "prime. scale: the nominal scale of fresh ciphertexts (default 2^bits of the last "
          "ciphertext prime, the rescaling primes' size).")
      .def_static(
          "suggest_ckks",
          [](std::size_t depth, int scale_bits, int first_prime_bits, rlwe::SecurityLevel security,
             std::size_t slots) {
            ckks::ParameterRequest request;
            request.depth = depth;
            request.scale_bits = scale_bits;
            request.first_prime_bits = first_prime_bits;
            request.security = security;
            request.slots = slots;
            return ckks::suggest_parameters(request);
          },
          py::arg("depth") = 1, py::arg("scale_bits") = 40, py::arg("first_prime_bits") = 60,
          py::arg("security") = rlwe::SecurityLevel::classic128, py::arg("slots") = 0,
          "heft's CKKS helper: the smallest secure N and the primes for `depth` "
          "multiplications in sequence at scale 2^scale_bits, with at least `slots` slots.")
      .def_property_readonly(
          "poly_modulus_degree", [](const Parameters& p) { return p.degree; }, "N.")
      .def_property_readonly(
          "ciphertext_moduli", [](const Parameters& p) { return p.ciphertext_moduli; },
          "The ciphertext primes q_0 .. q_{L-1} (a level-l ciphertext uses the first l + 1).")
      .def_property_readonly(
          "special_moduli", [](const Parameters& p) { return p.special_moduli; },
          "The special primes of hybrid key switching (empty: no key switching).")
      .def_property_readonly("dnum", &Parameters::digit_count, "Key-switching digits.")
      .def_property_readonly(
          "plain_modulus", [](const Parameters& p) { return p.plain_modulus; },
          "BFV/BGV: the plaintext modulus t (0 for CKKS).")
      .def_property_readonly(
          "scale", [](const Parameters& p) { return p.scale; },
          "CKKS: the nominal scale of fresh ciphertexts (0 for BFV/BGV).")
      .def_property_readonly(
          "security", [](const Parameters& p) { return p.security; },
          "The SecurityLevel the set was validated against.")
      .def_property_readonly(
          "secret_hamming_weight",
          [](const Parameters& p) {
            return p.secret.kind == rlwe::SecretKind::sparse_ternary ? p.secret.hamming_weight
                                                                     : std::size_t{0};
          },
          "Nonzero coefficients of a sparse secret (0: uniform ternary).")
      .def_property_readonly("total_bits", &Parameters::total_bits,
                             "log2(QP) as heft measures it: the sum of all primes' bit sizes.")
      .def_property_readonly(
          "max_total_bits",
          [](const Parameters& p) -> std::optional<int> {
            if (p.security == rlwe::SecurityLevel::none) return std::nullopt;
            return rlwe::max_log_qp(p.degree, p.security);
          },
          "The most total_bits the security level allows at this N (None for "
          "SecurityLevel.none).")
      .def("validate", &Parameters::validate,
           "Checks the set again (InvalidArgument with the reason); every constructor has.")
      .def("__repr__",
           [](const Parameters& p) { return "heft.native.Parameters(" + rlwe::describe(p) + ")"; })
      .def("__eq__",
           [](const Parameters& a, const Parameters& b) {
             return rlwe::parameter_hash(a) == rlwe::parameter_hash(b);
           })
      .def("__hash__",
           [](const Parameters& p) {
             const auto hash = rlwe::parameter_hash(p);
             return py::hash(py::bytes(reinterpret_cast<const char*>(hash.data()), hash.size()));
           })
      .def(
          "serialize", [](const Parameters& p) { return to_bytes(rlwe::save(p)); },
          "The parameters' bytes (a few hundred): what a receiving side rebuilds the context "
          "from.")
      .def_static(
          "load",
          [](const py::bytes& data, bool allow_insecure) {
            return rlwe::load_parameters(from_bytes(data), load_options(allow_insecure));
          },
          py::arg("data"), py::arg("allow_insecure_parameters") = false,
          "Parameters from serialize()'s bytes, validated; SecurityLevel.none ones only with "
          "allow_insecure_parameters.")
      .def(py::pickle(
          [](const Parameters& p) { return py::make_tuple(to_bytes(rlwe::save(p)), insecure(p)); },
          [](const py::tuple& state) {
            if (state.size() != 2) throw FormatError("unpickling: a state of 2 items expected");
            return rlwe::load_parameters(from_bytes(state[0].cast<py::bytes>()),
                                         load_options(state[1].cast<bool>()));
          }));
  def_integer_parameters(c, "bfv",
                         "BFV parameters as SEAL takes them (the last of coeff_mod_bit_sizes is "
                         "the special prime) with plaintext modulus t (a prime = 1 mod 2N for "
                         "batching).");
  def_integer_parameters(c, "bgv",
                         "BGV parameters as SEAL takes them; the same set as bfv() (heft's "
                         "parameters do not name a scheme: the encryptor and evaluator do).");
  def_suggest_integer(c, "suggest_bfv", schemes::IntegerScheme::bfv,
                      "heft's BFV helper: N and primes for `depth` multiplications, with a "
                      "batching t of plain_bits bits (or plain_modulus itself when given).");
  def_suggest_integer(c, "suggest_bgv", schemes::IntegerScheme::bgv,
                      "heft's BGV helper: N and a modulus chain of one level per multiplication "
                      "(modulus switching), with a batching t as suggest_bfv.");
}

// ---- the context ----

void bind_context_class(py::module_& m) {
  py::class_<NativeContext>(m, "Context",
                            "Everything precomputed from one parameter set, shared by the keys, "
                            "encoders, encryptors and evaluators made under it. Objects of one "
                            "context are refused by another (contexts compare by identity), "
                            "even one of the same parameters.")
      .def(py::init([](const rlwe::Parameters& parameters) {
             py::gil_scoped_release release;
             return NativeContext{remember(rlwe::Context::create(parameters))};
           }),
           py::arg("parameters"), "The context of `parameters` (validated again).")
      .def_property_readonly(
          "parameters", [](const NativeContext& c) { return c.ptr->parameters(); },
          "The Parameters it was built from.")
      .def_property_readonly(
          "poly_modulus_degree", [](const NativeContext& c) { return c.ptr->degree(); }, "N.")
      .def_property_readonly(
          "level_count", [](const NativeContext& c) { return c.ptr->level_count(); },
          "L, the number of ciphertext primes.")
      .def_property_readonly(
          "max_level", [](const NativeContext& c) { return c.ptr->max_level(); },
          "L - 1: the level of fresh ciphertexts (level 0 is the last).")
      .def_property_readonly(
          "supports_key_switching",
          [](const NativeContext& c) { return c.ptr->supports_key_switching(); },
          "True when there are special primes (relinearization and rotation keys).")
      .def_property_readonly(
          "plain_modulus", [](const NativeContext& c) { return c.ptr->parameters().plain_modulus; },
          "BFV/BGV: t (0 for CKKS).")
      .def_property_readonly(
          "scale", [](const NativeContext& c) { return c.ptr->parameters().scale; },
          "CKKS: the nominal scale of fresh ciphertexts (0 for BFV/BGV).")
      .def_property_readonly(
          "security", [](const NativeContext& c) { return c.ptr->parameters().security; },
          "The SecurityLevel the parameters meet.")
      .def(
          "galois_element_for_step",
          [](const NativeContext& c, int64_t step) { return c.ptr->galois_element_for_step(step); },
          py::arg("step"),
          "The Galois element 5^step mod 2N of a left rotation by `step` (negative: right).")
      .def_property_readonly(
          "conjugation_galois_element",
          [](const NativeContext& c) { return c.ptr->conjugation_galois_element(); },
          "2N - 1: complex conjugation (CKKS), the row swap (BFV/BGV).")
      .def(
          "serialize", [](const NativeContext& c) { return to_bytes(rlwe::save(*c.ptr)); },
          "The context's bytes: its parameters, from which the receiving side rebuilds it.")
      .def_static(
          "load",
          [](const py::bytes& data, bool allow_insecure) {
            const auto bytes = from_bytes(data);
            py::gil_scoped_release release;
            return NativeContext{remember(rlwe::load_context(bytes, load_options(allow_insecure)))};
          },
          py::arg("data"), py::arg("allow_insecure_parameters") = false,
          "A new context from serialize()'s bytes; SecurityLevel.none parameters only with "
          "allow_insecure_parameters.")
      .def(py::pickle(
          [](const NativeContext& c) {
            return py::make_tuple(to_bytes(rlwe::save(*c.ptr)), insecure(c.ptr->parameters()));
          },
          [](const py::tuple& state) {
            if (state.size() != 2) throw FormatError("unpickling: a state of 2 items expected");
            const auto bytes = from_bytes(state[0].cast<py::bytes>());
            const bool allow_insecure = state[1].cast<bool>();
            py::gil_scoped_release release;
            return NativeContext{context_for(bytes, allow_insecure)};
          }))
      .def("__eq__", [](const NativeContext& a, const NativeContext& b) { return a.ptr == b.ptr; })
      .def("__hash__", [](const NativeContext& c) { return std::hash<const void*>{}(c.ptr.get()); })
      .def("__repr__", [](const NativeContext& c) {
        return "heft.native.Context(" + rlwe::describe(c.ptr->parameters()) + ")";
      });
}

// ---- keys ----

template <class T, class... Options>
void bind_key_context(py::class_<T, Options...>& c) {
  c.def_property_readonly(
      "context", [](const T& key) { return NativeContext{context_of(key)}; },
      "The Context the key belongs to.");
}

std::unique_ptr<rlwe::KeyGenerator> make_key_generator(const NativeContext& context,
                                                       const SecretKey* secret_key, bool bgv) {
  const uint64_t error_scale = bgv ? bgv::plain_modulus(*context.ptr) : 1;
  py::gil_scoped_release release;
  if (secret_key != nullptr)
    return std::make_unique<rlwe::KeyGenerator>(context.ptr, secret_key->key, error_scale);
  return std::make_unique<rlwe::KeyGenerator>(context.ptr, error_scale);
}

void bind_keys(py::module_& m) {
  py::class_<SecretKey> secret(m, "SecretKey",
                               "The secret key s. serialize() writes it (its bytes are the "
                               "secret); it does not pickle, so it never leaves by accident.");
  bind_key_context(secret);
  bind_bytes(secret, false);

  py::class_<rlwe::PublicKey> pub(m, "PublicKey",
                                  "The public key (b, a) = (-a s + e, a): encryption without s.");
  bind_key_context(pub);
  bind_bytes(pub);

  py::class_<rlwe::RelinKey> relin(
      m, "RelinKey", "The relinearization key: brings a product's three parts back to two.");
  bind_key_context(relin);
  bind_bytes(relin);
  relin.def_property_readonly(
      "max_level", [](const rlwe::RelinKey& k) { return k.key.max_level(); },
      "The highest ciphertext level the key switches.");

  py::class_<rlwe::GaloisKeys> galois(m, "GaloisKeys",
                                      "Keys for the automorphisms X -> X^g, by Galois element g: "
                                      "rotations and conjugation (CKKS), row rotations and the "
                                      "row swap (BFV/BGV).");
  bind_key_context(galois);
  bind_bytes(galois);
  galois.def("elements", &rlwe::GaloisKeys::elements, "The Galois elements present, ascending.")
      .def("has_element", &rlwe::GaloisKeys::has, py::arg("galois_element"),
           "True when there is a key for element g.")
      .def(
          "has_step",
          [](const rlwe::GaloisKeys& k, int64_t step) {
            return k.has(k.context()->galois_element_for_step(step));
          },
          py::arg("step"),
          "True when there is a key of its own for a rotation by `step` (others are composed "
          "from the keys present).")
      .def("__len__", &rlwe::GaloisKeys::size);

  py::class_<rlwe::KeyGenerator>(m, "KeyGenerator",
                                 "Makes a secret key (or takes one) and the keys derived from "
                                 "it. For BGV pass bgv=True: its keys' errors are multiplied by "
                                 "t, as the BGV encryptor and evaluator require.")
      .def(py::init(&make_key_generator), py::arg("context"), py::arg("secret_key") = py::none(),
           py::arg("bgv") = false,
           "A generator under `context` with a fresh secret key, or for `secret_key`.")
      .def_property_readonly("error_scale", &rlwe::KeyGenerator::error_scale,
                             "What every key error is multiplied by: 1, or t for BGV.")
      .def(
          "secret_key",
          [](const rlwe::KeyGenerator& g) { return SecretKey{g.secret_key().clone()}; },
          "A copy of the secret key.")
      .def(
          "create_public_key", [](const rlwe::KeyGenerator& g) { return g.create_public_key(); },
          Release(), "A fresh public key.")
      .def(
          "create_relin_key", [](const rlwe::KeyGenerator& g) { return g.create_relin_key(); },
          Release(), "The relinearization key.")
      .def(
          "create_galois_keys",
          [](const rlwe::KeyGenerator& g, const std::vector<int64_t>& steps,
             bool include_conjugation, std::optional<std::size_t> max_level) {
            return g.create_galois_keys(steps, include_conjugation, max_level);
          },
          Release(), py::arg("steps") = std::vector<int64_t>{},
          py::arg("include_conjugation") = false, py::arg("max_level") = py::none(),
          "Keys for left rotations by each step (negative: right) and, when asked, for "
          "conjugation (CKKS) / the row swap (BFV/BGV); for ciphertexts up to max_level "
          "(default: the top; lower keys are smaller).")
      .def(
          "create_galois_keys_for_elements",
          [](const rlwe::KeyGenerator& g, const std::vector<uint64_t>& elements,
             std::optional<std::size_t> max_level) {
            return g.create_galois_keys_for_elements(elements, max_level);
          },
          Release(), py::arg("elements"), py::arg("max_level") = py::none(),
          "Keys for the given Galois elements.");

  m.def(
      "serialize_key_set",
      [](const rlwe::PublicKey* public_key, const rlwe::RelinKey* relin_key,
         const rlwe::GaloisKeys* galois_keys, rlwe::Compression compression) {
        rlwe::Bytes bytes;
        {
          py::gil_scoped_release release;
          bytes = rlwe::save_key_set(public_key, relin_key, galois_keys, save_options(compression));
        }
        return to_bytes(bytes);
      },
      py::arg("public_key") = py::none(), py::arg("relin_key") = py::none(),
      py::arg("galois_keys") = py::none(), py::arg("compression") = rlwe::Compression::none,
      "The evaluation keys given (at least one, of one context) as one object: what a client "
      "sends the server.");
  m.def(
      "load_key_set",
      [](const NativeContext& context, const py::bytes& data) {
        const auto bytes = from_bytes(data);
        rlwe::KeySet keys;
        {
          py::gil_scoped_release release;
          keys = rlwe::load_key_set(context.ptr, bytes);
        }
        auto optional = [](auto& key) -> py::object {
          if (!key) return py::none();
          return py::cast(std::move(*key));
        };
        return py::make_tuple(optional(keys.public_key), optional(keys.relin_key),
                              optional(keys.galois_keys));
      },
      py::arg("context"), py::arg("data"),
      "(public_key, relin_key, galois_keys) from serialize_key_set's bytes, None for each "
      "left out.");
}

// ---- ciphertexts and plaintexts ----

template <class T>
WithContext<T> copy_of(const WithContext<T>& o) {
  if constexpr (requires { o.value.clone(); })
    return {o.context, o.value.clone()};
  else
    return {o.context, o.value};
}

template <class T>
void bind_copy_and_context(py::class_<WithContext<T>>& c) {
  c.def_property_readonly(
       "context", [](const WithContext<T>& o) { return NativeContext{o.context}; },
       "The Context it was made under.")
      .def("copy", &copy_of<T>, "An independent copy.")
      .def("__copy__", &copy_of<T>)
      .def("__deepcopy__", [](const WithContext<T>& o, const py::dict&) { return copy_of(o); });
}

void bind_data(py::module_& m) {
  py::class_<Ciphertext> ct(m, "Ciphertext",
                            "A ciphertext of any scheme (parts in NTT form) with what the "
                            "scheme tracks: level, CKKS scale and slots, BGV correction factor "
                            "and noise estimate. Immutable: operations return new ones.");
  bind_copy_and_context(ct);
  bind_bytes(ct);
  ct.def_property_readonly(
        "level", [](const Ciphertext& c) { return c.value.level(); },
        "Its level: it lives modulo q_0 ... q_level.")
      .def_property_readonly(
          "size", [](const Ciphertext& c) { return c.value.size(); },
          "Its part count: 2, or 3 after a product before relinearization.")
      .def_property_readonly(
          "scale", [](const Ciphertext& c) { return c.value.scale; },
          "CKKS: the exact scale of the encrypted values.")
      .def_property_readonly(
          "slots", [](const Ciphertext& c) { return c.value.slots; },
          "CKKS: the packed slot count (0: all N/2).")
      .def_property_readonly(
          "needs_rescale", [](const Ciphertext& c) { return c.value.needs_rescale; },
          "CKKS: a product whose scale has not been divided down yet.")
      .def_property_readonly(
          "correction", [](const Ciphertext& c) { return c.value.correction; },
          "BGV: the correction factor the decryption multiplies by (1 otherwise).")
      .def_property_readonly(
          "noise_log2", [](const Ciphertext& c) { return c.value.noise_log2; },
          "BGV: log2 of the noise bound the evaluator tracks (inf: not estimated).")
      .def(
          "is_transparent", [](const Ciphertext& c) { return rlwe::is_transparent(c.value); },
          "True when its mask has cancelled (the message would be in the clear).")
      .def("__repr__", [](const Ciphertext& c) {
        return "heft.native.Ciphertext(level=" + std::to_string(c.value.level()) +
               ", size=" + std::to_string(c.value.size()) + ")";
      });

  py::class_<Plaintext> plain(m, "Plaintext",
                              "A CKKS-encoded plaintext: one polynomial at a level, with its "
                              "exact scale and slot count (CKKSEncoder.encode makes them).");
  bind_copy_and_context(plain);
  bind_bytes(plain);
  plain
      .def_property_readonly(
          "level", [](const Plaintext& p) { return p.value.level(); }, "Its level.")
      .def_property_readonly(
          "scale", [](const Plaintext& p) { return p.value.scale; },
          "The exact scale the values were multiplied by.")
      .def_property_readonly(
          "slots", [](const Plaintext& p) { return p.value.slots; }, "The packed slot count.");

  py::class_<IntegerPlaintext> integer(m, "IntegerPlaintext",
                                       "A BFV/BGV plaintext: a polynomial of Z_t[X]/(X^N + 1) "
                                       "(BatchEncoder.encode makes them).");
  bind_copy_and_context(integer);
  bind_bytes(integer);
  integer
      .def_static(
          "from_coefficients",
          [](const NativeContext& context, const ArrayLike& input) {
            const py::array& values = input.array;
            const uint64_t t = context.ptr->parameters().plain_modulus;
            if (t == 0) throw InvalidArgument("from_coefficients: the parameters have no t");
            const auto reduced = integers_mod(values, t, "from_coefficients");
            const std::vector<int64_t> signed_values(reduced.begin(), reduced.end());
            return IntegerPlaintext{
                context.ptr, schemes::encode_coefficients(signed_values, context.ptr->degree(), t)};
          },
          py::arg("context"), py::arg("values"),
          "The polynomial sum_i values[i] X^i mod t (no batching needed): integers in "
          "(-t, t), at most N of them.")
      .def_property_readonly(
          "plain_modulus", [](const IntegerPlaintext& p) { return p.value.modulus; }, "t.")
      .def_property_readonly(
          "coefficients", [](const IntegerPlaintext& p) { return to_numpy(p.value.coefficients); },
          "The N coefficients in [0, t), as a numpy uint64 array.");
}

// ---- encoders ----

std::vector<double> level_scales(const ContextPtr& context) {
  std::vector<double> scales;
  if (!(context->parameters().scale > 0)) return scales;
  const ckks::Evaluator evaluator(context);
  for (std::size_t level = 0; level < context->level_count(); ++level)
    scales.push_back(evaluator.scale_at(level));
  return scales;
}

Plaintext ckks_encode(const CKKSEncoder& e, const ArrayLike& input, std::optional<double> scale,
                      std::optional<std::size_t> level, std::size_t slots) {
  const py::array& values = input.array;
  const auto& context = e.encoder.context();
  require_vector(values, "CKKSEncoder.encode");
  const std::size_t at = level.value_or(context->max_level());
  if (at > context->max_level())
    throw InvalidArgument("CKKSEncoder.encode: level " + std::to_string(at) +
                          " is above the top level " + std::to_string(context->max_level()));
  if (!scale && e.scales.empty())
    throw InvalidArgument("CKKSEncoder.encode: the parameters have no nominal scale; give one");
  const double s = scale.value_or(e.scales.empty() ? 0.0 : e.scales[at]);
  const char kind = values.dtype().kind();
  if (kind == 'c') {
    const auto complex_values = to_vector<std::complex<double>>(values);
    py::gil_scoped_release release;
    return {context,
            e.encoder.encode(std::span<const std::complex<double>>(complex_values), s, at, slots)};
  }
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw InvalidArgument("CKKSEncoder.encode: real or complex values expected, got dtype " +
                          std::string(py::str(values.dtype())));
  const auto real_values = to_vector<double>(values);
  py::gil_scoped_release release;
  return {context, e.encoder.encode(std::span<const double>(real_values), s, at, slots)};
}

void bind_encoders(py::module_& m) {
  py::class_<CKKSEncoder>(m, "CKKSEncoder",
                          "CKKS encoding: real or complex numpy vectors <-> plaintexts, through "
                          "the canonical embedding at a scale and a level.")
      .def(py::init([](const NativeContext& context) {
             return std::make_unique<CKKSEncoder>(
                 CKKSEncoder{ckks::Encoder(context.ptr), level_scales(context.ptr)});
           }),
           py::arg("context"), "The encoder of `context`.")
      .def_property_readonly(
          "context", [](const CKKSEncoder& e) { return NativeContext{e.encoder.context()}; },
          "Its Context.")
      .def_property_readonly(
          "slot_count", [](const CKKSEncoder& e) { return e.encoder.max_slots(); },
          "N/2: the slots of full packing.")
      .def(
          "scale_at",
          [](const CKKSEncoder& e, std::size_t level) {
            if (level >= e.scales.size())
              throw InvalidArgument("scale_at: no level " + std::to_string(level) +
                                    " with a default scale");
            return e.scales[level];
          },
          py::arg("level"),
          "The default scale at `level` (the evaluator's scale_at): what encode uses when no "
          "scale is given.")
      .def("encode", &ckks_encode, py::arg("values"), py::arg("scale") = py::none(),
           py::arg("level") = py::none(), py::arg("slots") = 0,
           "A plaintext of `values` (a 1-D array or list, real or complex; at most `slots` of "
           "them, missing ones are 0) at `level` (default: the top) and `scale` (default: "
           "scale_at(level)); slots: a power of two up to N/2 (0: N/2).")
      .def(
          "decode",
          [](const CKKSEncoder& e, const Plaintext& p) {
            const auto values = unlocked([&] { return e.encoder.decode(p.value); });
            return to_numpy(values);
          },
          py::arg("plain"), "The plaintext's slots as a complex128 numpy array.")
      .def(
          "decode_real",
          [](const CKKSEncoder& e, const Plaintext& p) {
            const auto values = unlocked([&] { return e.encoder.decode_real(p.value); });
            return to_numpy(values);
          },
          py::arg("plain"), "The real parts of decode(), as a float64 numpy array.");

  py::class_<BatchEncoder>(m, "BatchEncoder",
                           "BFV/BGV batching: N integers mod t <-> one plaintext, as a 2 x N/2 "
                           "matrix whose rows rotate independently (t a prime = 1 mod 2N).")
      .def(py::init([](const NativeContext& context) {
             return std::make_unique<BatchEncoder>(BatchEncoder{
                 context.ptr, schemes::BatchEncoder(context.ptr->degree(),
                                                    context.ptr->parameters().plain_modulus)});
           }),
           py::arg("context"),
           "The batch encoder of `context` (InvalidArgument unless its t "
           "is a batching prime).")
      .def_property_readonly(
          "context", [](const BatchEncoder& e) { return NativeContext{e.context}; }, "Its Context.")
      .def_property_readonly(
          "slot_count", [](const BatchEncoder& e) { return e.value.slot_count(); }, "N.")
      .def_property_readonly(
          "row_size", [](const BatchEncoder& e) { return e.value.slot_count() / 2; },
          "N/2: the length of each row.")
      .def_property_readonly(
          "plain_modulus", [](const BatchEncoder& e) { return e.value.plain_modulus(); }, "t.")
      .def(
          "encode",
          [](const BatchEncoder& e, const ArrayLike& input) {
            const py::array& values = input.array;
            const auto reduced = integers_mod(values, e.value.plain_modulus(), "batch encode");
            py::gil_scoped_release release;
            return IntegerPlaintext{e.context, e.value.encode(reduced)};
          },
          py::arg("values"),
          "A plaintext of integer `values` in (-t, t), taken mod t: values[r * N/2 + c] in "
          "row r, column c; at most N, missing ones are 0.")
      .def(
          "decode",
          [](const BatchEncoder& e, const IntegerPlaintext& p, bool is_signed) -> py::array {
            if (is_signed)
              return to_numpy(unlocked([&] { return e.value.decode_signed(p.value); }));
            return to_numpy(unlocked([&] { return e.value.decode(p.value); }));
          },
          py::arg("plain"), py::arg("signed") = true,
          "The N slots: int64 in (-t/2, t/2] (signed), or uint64 in [0, t).");
}

// ---- encryptors and decryptors ----

// Encrypt: (encryptor, plaintext, optional level) -> rlwe::Ciphertext.
template <class Encryptor, class Plain, class Encrypt>
void bind_encryptor(py::module_& m, const char* name, const char* doc, const char* encrypt_doc,
                    Encrypt encrypt) {
  using Bound = WithContext<Encryptor>;
  py::class_<Bound>(m, name, doc)
      .def(py::init([](const rlwe::PublicKey& key) {
             return std::make_unique<Bound>(Bound{key.context, Encryptor(key)});
           }),
           py::arg("key"), "Public-key encryption.")
      .def(py::init([](const SecretKey& key) {
             return std::make_unique<Bound>(Bound{key.key.context(), Encryptor(key.key)});
           }),
           py::arg("key"), "Secret-key encryption.")
      .def_property_readonly(
          "context", [](const Bound& e) { return NativeContext{e.context}; }, "Its Context.")
      .def(
          "encrypt",
          [encrypt](const Bound& e, const Plain& p, std::optional<std::size_t> level) {
            return Ciphertext{e.context, encrypt(e.value, p.value, level)};
          },
          Release(), py::arg("plain"), py::arg("level") = py::none(), encrypt_doc);
}

template <class Decryptor, class Plain>
py::class_<WithContext<Decryptor>> bind_decryptor(py::module_& m, const char* name,
                                                  const char* doc) {
  using Bound = WithContext<Decryptor>;
  py::class_<Bound> c(m, name, doc);
  c.def(py::init([](const SecretKey& key) {
          return std::make_unique<Bound>(Bound{key.key.context(), Decryptor(key.key)});
        }),
        py::arg("secret_key"), "Decryption with `secret_key`.")
      .def_property_readonly(
          "context", [](const Bound& d) { return NativeContext{d.context}; }, "Its Context.")
      .def(
          "decrypt",
          [](const Bound& d, const Ciphertext& ct) {
            return Plain{d.context, d.value.decrypt(ct.value)};
          },
          Release(), py::arg("ciphertext"),
          "The plaintext (MismatchError for a ciphertext of another context).");
  return c;
}

constexpr const char* kBudgetDoc =
    "Bits of noise budget left, measured with the secret key (0: decryption may be wrong). "
    "Only on your own ciphertexts: revealed on others', it leaks information about the key.";

void bind_encryption(py::module_& m) {
  bind_encryptor<rlwe::Encryptor, Plaintext>(
      m, "CKKSEncryptor", "CKKS encryption of Plaintexts with a public or a secret key.",
      "A fresh ciphertext of `plain` at its level, scale and slots (level: leave it None).",
      [](const rlwe::Encryptor& e, const rlwe::Plaintext& p, std::optional<std::size_t> level) {
        if (level) throw InvalidArgument("encrypt: a CKKS plaintext carries its level");
        return e.encrypt(p);
      });
  bind_decryptor<rlwe::Decryptor, Plaintext>(m, "CKKSDecryptor",
                                             "CKKS decryption to a Plaintext (decode it with "
                                             "CKKSEncoder.decode).");
  bind_encryptor<bfv::Encryptor, IntegerPlaintext>(
      m, "BFVEncryptor", "BFV encryption of IntegerPlaintexts with a public or a secret key.",
      "A fresh ciphertext of `plain` at the top level, or at `level`.",
      [](const bfv::Encryptor& e, const schemes::IntegerPlaintext& p,
         std::optional<std::size_t> level) { return level ? e.encrypt(p, *level) : e.encrypt(p); });
  bind_decryptor<bfv::Decryptor, IntegerPlaintext>(m, "BFVDecryptor", "BFV decryption.")
      .def(
          "invariant_noise_budget",
          [](const BFVDecryptor& d, const Ciphertext& ct) {
            return d.value.invariant_noise_budget(ct.value);
          },
          Release(), py::arg("ciphertext"), kBudgetDoc);
  bind_encryptor<bgv::Encryptor, IntegerPlaintext>(
      m, "BGVEncryptor",
      "BGV encryption with a public key from KeyGenerator(context, bgv=True), or a secret key.",
      "A fresh ciphertext of `plain` at the top level, or at `level`, with its noise estimate.",
      [](const bgv::Encryptor& e, const schemes::IntegerPlaintext& p,
         std::optional<std::size_t> level) { return e.encrypt(p, level); });
  bind_decryptor<bgv::Decryptor, IntegerPlaintext>(m, "BGVDecryptor", "BGV decryption.")
      .def(
          "invariant_noise_budget",
          [](const BGVDecryptor& d, const Ciphertext& ct) {
            return d.value.invariant_noise_budget(ct.value);
          },
          Release(), py::arg("ciphertext"), kBudgetDoc);
}

// ---- evaluators ----

template <class E>
Ciphertext result(const E& e, rlwe::Ciphertext ct) {
  return {e.context(), std::move(ct)};
}

// What the three evaluators share; Plain is the scheme's plaintext.
template <class E, class Plain>
void bind_shared_operations(py::class_<E>& c) {
  using rlwe::RelinKey;
  c.def_property_readonly(
       "context", [](const E& e) { return NativeContext{e.context()}; }, "Its Context.")
      .def_property("allow_transparent_results", &E::allows_transparent_results,
                    &E::allow_transparent_results,
                    "False (the default): results whose mask cancels (x - x, a product by "
                    "zero) raise TransparentCiphertextError instead of being returned.")
      .def(
          "add",
          [](const E& e, const Ciphertext& a, const Ciphertext& b) {
            return result(e, e.add(a.value, b.value));
          },
          Release(), py::arg("a"), py::arg("b"), "a + b.")
      .def(
          "sub",
          [](const E& e, const Ciphertext& a, const Ciphertext& b) {
            return result(e, e.sub(a.value, b.value));
          },
          Release(), py::arg("a"), py::arg("b"), "a - b.")
      .def(
          "negate", [](const E& e, const Ciphertext& a) { return result(e, e.negate(a.value)); },
          Release(), py::arg("a"), "-a.")
      .def(
          "add_plain",
          [](const E& e, const Ciphertext& a, const Plain& p) {
            return result(e, e.add_plain(a.value, p.value));
          },
          Release(), py::arg("a"), py::arg("plain"), "a + plain.")
      .def(
          "sub_plain",
          [](const E& e, const Ciphertext& a, const Plain& p) {
            return result(e, e.sub_plain(a.value, p.value));
          },
          Release(), py::arg("a"), py::arg("plain"), "a - plain.")
      .def(
          "multiply_plain",
          [](const E& e, const Ciphertext& a, const Plain& p) {
            return result(e, e.multiply_plain(a.value, p.value));
          },
          Release(), py::arg("a"), py::arg("plain"), "a * plain, slot-wise.")
      .def(
          "multiply",
          [](const E& e, const Ciphertext& a, const Ciphertext& b, const RelinKey* key) {
            return result(e, key != nullptr ? e.multiply(a.value, b.value, *key)
                                            : e.multiply(a.value, b.value));
          },
          Release(), py::arg("a"), py::arg("b"), py::arg("relin_key") = py::none(),
          "a * b, slot-wise: three parts, or relinearized to two with relin_key.")
      .def(
          "square",
          [](const E& e, const Ciphertext& a, const RelinKey* key) {
            return result(e, key != nullptr ? e.square(a.value, *key) : e.square(a.value));
          },
          Release(), py::arg("a"), py::arg("relin_key") = py::none(),
          "a * a, relinearized with relin_key when given.")
      .def(
          "relinearize",
          [](const E& e, const Ciphertext& a, const RelinKey& key) {
            return result(e, e.relinearize(a.value, key));
          },
          Release(), py::arg("a"), py::arg("relin_key"), "A three-part product back to two parts.")
      .def(
          "apply_galois",
          [](const E& e, const Ciphertext& a, uint64_t element, const rlwe::GaloisKeys& keys) {
            return result(e, e.apply_galois(a.value, element, keys));
          },
          Release(), py::arg("a"), py::arg("galois_element"), py::arg("galois_keys"),
          "The automorphism X -> X^g, with its key.");
}

// What BFV and BGV share beyond that: scalars mod t and the slot matrix's rotations.
template <class E>
void bind_integer_operations(py::class_<E>& c) {
  c.def(
       "add_scalar",
       [](const E& e, const Ciphertext& a, int64_t value) {
         return result(
             e, e.add_scalar(a.value, scalar_mod(value, e.context()->parameters().plain_modulus)));
       },
       Release(), py::arg("a"), py::arg("value"), "a + value (mod t) in every slot.")
      .def(
          "multiply_scalar",
          [](const E& e, const Ciphertext& a, int64_t value) {
            return result(
                e, e.multiply_scalar(a.value,
                                     scalar_mod(value, e.context()->parameters().plain_modulus)));
          },
          Release(), py::arg("a"), py::arg("value"), "a * value (mod t) in every slot.")
      .def(
          "rotate_rows",
          [](const E& e, const Ciphertext& a, int64_t step, const rlwe::GaloisKeys& keys) {
            return result(e, e.rotate_rows(a.value, step, keys));
          },
          Release(), py::arg("a"), py::arg("step"), py::arg("galois_keys"),
          "Both rows of the 2 x N/2 slot matrix rotated left by `step` (negative: right), by "
          "its key or composed from the keys present (InvalidArgument naming the step when "
          "no sum of them reaches it).")
      .def(
          "rotate_columns",
          [](const E& e, const Ciphertext& a, const rlwe::GaloisKeys& keys) {
            return result(e, e.rotate_columns(a.value, keys));
          },
          Release(), py::arg("a"), py::arg("galois_keys"),
          "The two rows swapped (keys made with include_conjugation=True).");
}

// An evaluator whose constructor takes a context and a mode: the mode's enum
// (values automatic and manual), the class, its constructor and `mode`.
template <class E, class Mode>
py::class_<E> bind_evaluator_with_mode(py::module_& m, const char* mode_name, const char* mode_doc,
                                       const char* name, const char* doc, const char* init_doc) {
  py::enum_<Mode>(m, mode_name, mode_doc)
      .value("automatic", Mode::automatic)
      .value("manual", Mode::manual);
  py::class_<E> c(m, name, doc);
  c.def(py::init([](const NativeContext& context, Mode mode) {
          return std::make_unique<E>(context.ptr, mode);
        }),
        py::arg("context"), py::arg("mode") = Mode::automatic, init_doc)
      .def_property_readonly("mode", &E::mode, "The evaluator's mode.");
  return c;
}

void bind_ckks_evaluator(py::module_& m) {
  using E = ckks::Evaluator;
  auto c = bind_evaluator_with_mode<E, ckks::ScaleMode>(
      m, "ScaleMode",
      "automatic: operands aligned and products rescaled for you (OpenFHE's FLEXIBLEAUTO); "
      "manual: nothing behind your back.",
      "CKKSEvaluator",
      "CKKS arithmetic with exact scale bookkeeping; every operation checks its operands "
      "before it writes anything and leaves them unchanged on error.",
      "An evaluator under `context` (InvalidArgument without a nominal scale).");
  bind_shared_operations<E, Plaintext>(c);
  c.def("scale_at", &E::scale_at, py::arg("level"),
        "The default scale of a fresh or rescaled ciphertext at `level`.")
      .def(
          "add_scalar",
          [](const E& e, const Ciphertext& a, std::complex<double> v) {
            return result(e, e.add_scalar(a.value, v));
          },
          Release(), py::arg("a"), py::arg("value"), "a + value in every slot.")
      .def(
          "sub_scalar",
          [](const E& e, const Ciphertext& a, std::complex<double> v) {
            return result(e, e.sub_scalar(a.value, v));
          },
          Release(), py::arg("a"), py::arg("value"), "a - value in every slot.")
      .def(
          "multiply_scalar",
          [](const E& e, const Ciphertext& a, std::complex<double> v) {
            return result(e, e.multiply_scalar(a.value, v));
          },
          Release(), py::arg("a"), py::arg("value"),
          "a * value in every slot (a level, once rescaled).")
      .def(
          "multiply_integer",
          [](const E& e, const Ciphertext& a, int64_t v) {
            return result(e, e.multiply_integer(a.value, v));
          },
          Release(), py::arg("a"), py::arg("value"), "a * an integer: exact, no level used.")
      .def(
          "rescale", [](const E& e, const Ciphertext& a) { return result(e, e.rescale(a.value)); },
          Release(), py::arg("a"), "Divided by the last prime q_l: level - 1, scale / q_l.")
      .def(
          "relinearize_rescale",
          [](const E& e, const Ciphertext& a, const rlwe::RelinKey& key) {
            return result(e, e.relinearize_rescale(a.value, key));
          },
          Release(), py::arg("a"), py::arg("relin_key"),
          "relinearize then rescale in one step (about half the transforms).")
      .def(
          "multiply_rescale",
          [](const E& e, const Ciphertext& a, const Ciphertext& b, const rlwe::RelinKey& key) {
            return result(e, e.multiply_rescale(a.value, b.value, key));
          },
          Release(), py::arg("a"), py::arg("b"), py::arg("relin_key"),
          "multiply, relinearize and rescale.")
      .def(
          "drop_to_level",
          [](const E& e, const Ciphertext& a, std::size_t level) {
            return result(e, e.drop_to_level(a.value, level));
          },
          Release(), py::arg("a"), py::arg("level"), "Primes dropped down to `level`, scale kept.")
      .def(
          "align_to",
          [](const E& e, const Ciphertext& a, std::size_t level, double scale) {
            return result(e, e.align_to(a.value, level, scale));
          },
          Release(), py::arg("a"), py::arg("level"), py::arg("scale"),
          "a brought to `level` with scale `scale`, as automatic mode aligns operands "
          "(changing the scale spends a level).")
      .def(
          "effective_level",
          [](const E& e, const Ciphertext& a) { return e.effective_level(a.value); }, py::arg("a"),
          "The level a counts as (a pending product's: level - 1).")
      .def(
          "effective_scale",
          [](const E& e, const Ciphertext& a) { return e.effective_scale(a.value); }, py::arg("a"),
          "The scale a counts as (a pending product's: scale / q_level).")
      .def(
          "rotate",
          [](const E& e, const Ciphertext& a, int64_t step, const rlwe::GaloisKeys& keys) {
            return result(e, e.rotate(a.value, step, keys));
          },
          Release(), py::arg("a"), py::arg("step"), py::arg("galois_keys"),
          "Slots rotated left by `step` (negative: right), by its key or composed from the "
          "keys present (InvalidArgument naming the step when no sum of them reaches it).")
      .def(
          "rotate_hoisted",
          [](const E& e, const Ciphertext& a, const std::vector<int64_t>& steps,
             const rlwe::GaloisKeys& keys) {
            std::vector<Ciphertext> out;
            for (auto& ct : e.rotate_hoisted(a.value, steps, keys))
              out.push_back(result(e, std::move(ct)));
            return out;
          },
          Release(), py::arg("a"), py::arg("steps"), py::arg("galois_keys"),
          "rotate(a, s) for each step s, sharing one key-switching decomposition.")
      .def(
          "conjugate",
          [](const E& e, const Ciphertext& a, const rlwe::GaloisKeys& keys) {
            return result(e, e.conjugate(a.value, keys));
          },
          Release(), py::arg("a"), py::arg("galois_keys"),
          "The complex conjugate of every slot (keys made with include_conjugation=True).")
      .def(
          "sum_slots",
          [](const E& e, const Ciphertext& a, const rlwe::GaloisKeys& keys) {
            return result(e, e.sum_slots(a.value, keys));
          },
          Release(), py::arg("a"), py::arg("galois_keys"),
          "Every slot becomes the sum of all slots (keys for the powers of two are fastest).");
}

void bind_bfv_evaluator(py::module_& m) {
  using E = bfv::Evaluator;
  py::class_<E> c(m, "BFVEvaluator",
                  "BFV arithmetic mod t; every operation checks its operands before it writes "
                  "anything and leaves them unchanged on error.");
  c.def(py::init([](const NativeContext& context) { return std::make_unique<E>(context.ptr); }),
        py::arg("context"), "An evaluator under `context` (InvalidArgument without t).");
  bind_shared_operations<E, IntegerPlaintext>(c);
  bind_integer_operations(c);
  c.def(
      "mod_switch_to_next",
      [](const E& e, const Ciphertext& a) { return result(e, e.mod_switch_to_next(a.value)); },
      Release(), py::arg("a"),
      "The last prime dropped with rounding: smaller and faster, budget about "
      "min(budget, log2(Q_{l-1} / t) - log2(N) / 2 - 1).");
}

void bind_bgv_evaluator(py::module_& m) {
  using E = bgv::Evaluator;
  auto c = bind_evaluator_with_mode<E, bgv::ModSwitchMode>(
      m, "ModSwitchMode",
      "automatic: every product is switched down a level; manual: you call mod_switch.",
      "BGVEvaluator",
      "BGV arithmetic mod t with a noise estimate on every ciphertext: an operation whose "
      "result would not decrypt raises NoiseBudgetError; operands are left unchanged on "
      "error.",
      "An evaluator under `context` (InvalidArgument without t).");
  bind_shared_operations<E, IntegerPlaintext>(c);
  bind_integer_operations(c);
  c.def(
       "estimated_noise_budget",
       [](const E& e, const Ciphertext& a) { return e.estimated_noise_budget(a.value); },
       py::arg("a"),
       "log2(Q_level / 2) - a.noise_log2: the budget the estimate leaves (no secret key "
       "needed; at most the measured one in practice).")
      .def(
          "mod_switch",
          [](const E& e, const Ciphertext& a) { return result(e, e.mod_switch(a.value)); },
          Release(), py::arg("a"), "The last prime dropped (InvalidArgument at level 0).")
      .def(
          "mod_switch_to",
          [](const E& e, const Ciphertext& a, std::size_t level) {
            return result(e, e.mod_switch_to(a.value, level));
          },
          Release(), py::arg("a"), py::arg("level"), "Primes dropped down to `level`.");
}

}  // namespace

void bind_native(py::module_& m) {
  // First: serialize() of every class takes one as its default.
  py::enum_<rlwe::Compression>(m, "Compression", "Compression of serialized objects.")
      .value("none", rlwe::Compression::none)
      .value("zstd", rlwe::Compression::zstd);
  bind_parameters(m);
  bind_context_class(m);
  bind_keys(m);
  bind_data(m);
  bind_encoders(m);
  bind_encryption(m);
  bind_ckks_evaluator(m);
  bind_bfv_evaluator(m);
  bind_bgv_evaluator(m);
}

}  // namespace heft::python
