// The one way heft's error messages print a quantity as a power of two
// (scales, moduli, noise bounds): "2^x" for a value given as its log2 x, so
// that values far beyond a double's range print too. Internal to heft.
#pragma once

#include <optional>
#include <string>

namespace heft::detail {

// "2^x" with `decimals` digits after the point ("2^40.00" for 2), or, without
// `decimals`, up to four significant digits and no trailing zeros ("2^70",
// "2^59.5").
std::string power_of_two_text(double log2_value, std::optional<int> decimals = std::nullopt);

}  // namespace heft::detail
