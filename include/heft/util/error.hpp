// Typed exceptions thrown by every public entry point of heft.
//
// Callers catch heft::Error for "anything heft refused", or one of the
// subclasses when they want to react to a specific kind of bad input.
#pragma once

#include <stdexcept>
#include <string>

#include "heft/export.hpp"

namespace heft {

// Base of every exception heft throws on purpose.
class HEFT_EXPORT Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument is malformed or out of range (not a power of two, not prime, ...).
class HEFT_EXPORT InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Operands do not fit together (different lengths, towers, forms, contexts).
class HEFT_EXPORT MismatchError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// Serialized bytes are malformed: truncated, corrupted (checksum), of another
// format version or object type, or with a field out of range. Loading never
// returns a half-built object: it throws this instead.
class HEFT_EXPORT FormatError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// An operation whose result would carry more noise than its modulus can hold
// (the BGV evaluator's noise estimate), so that it would decrypt to garbage:
// refused instead. A subclass of InvalidArgument, as a product at a level with
// no prime left to switch away (depth exhausted) has always been.
class HEFT_EXPORT NoiseBudgetError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// An operation whose result would be transparent: its mask cancelled (a
// product by zero, x - x), so that c0 alone is the message plus noise, in the
// clear (docs/security.md). The evaluators refuse such results instead of
// returning them; the tensor layer re-randomises them (it holds the public
// key). A subclass of InvalidArgument.
class HEFT_EXPORT TransparentCiphertextError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// The request is valid but this CPU or build cannot honour it (e.g. an ISA level
// the processor lacks).
class HEFT_EXPORT UnsupportedError : public Error {
 public:
  using Error::Error;
};

}  // namespace heft
