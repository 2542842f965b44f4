// heft's exceptions as Python exceptions: heft.Error is the base of all;
// InvalidArgument (and its MismatchError, FormatError, NoiseBudgetError)
// are also ValueError, UnsupportedError is also NotImplementedError, so
// code written for TenSEAL's ValueErrors catches them.
#include <Python.h>

#include "bindings.hpp"
#include "heft/util/error.hpp"

namespace heft::python {

namespace {

// The Python types, set once by bind_errors (the translator is a plain
// function and cannot capture them).
PyObject* error = nullptr;
PyObject* invalid = nullptr;
PyObject* mismatch = nullptr;
PyObject* format = nullptr;
PyObject* budget = nullptr;
PyObject* transparent = nullptr;
PyObject* unsupported = nullptr;

PyObject* make_exception(py::module_& m, const char* name, PyObject* bases) {
  const std::string full = std::string("heft._heft.") + name;
  PyObject* type = PyErr_NewException(full.c_str(), bases, nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::handle(type);
  return type;
}

}  // namespace

void bind_errors(py::module_& m) {
  error = make_exception(m, "Error", PyExc_Exception);
  invalid = make_exception(
      m, "InvalidArgument",
      py::make_tuple(py::handle(error), py::handle(PyExc_ValueError)).release().ptr());
  mismatch = make_exception(m, "MismatchError", invalid);
  format = make_exception(m, "FormatError", invalid);
  budget = make_exception(m, "NoiseBudgetError", invalid);
  transparent = make_exception(m, "TransparentCiphertextError", invalid);
  unsupported = make_exception(
      m, "UnsupportedError",
      py::make_tuple(py::handle(error), py::handle(PyExc_NotImplementedError)).release().ptr());
  // Most derived first.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const MismatchError& e) {
      PyErr_SetString(mismatch, e.what());
    } catch (const FormatError& e) {
      PyErr_SetString(format, e.what());
    } catch (const NoiseBudgetError& e) {
      PyErr_SetString(budget, e.what());
    } catch (const TransparentCiphertextError& e) {
      PyErr_SetString(transparent, e.what());
    } catch (const InvalidArgument& e) {
      PyErr_SetString(invalid, e.what());
    } catch (const UnsupportedError& e) {
      PyErr_SetString(unsupported, e.what());
    } catch (const Error& e) {
      PyErr_SetString(error, e.what());
    }
  });
}

}  // namespace heft::python
