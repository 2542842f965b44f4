// Coefficient bit packing (rlwe/serial_bytes.cpp) against a naive oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "heft/util/error.hpp"
#include "rlwe/serial_bytes.hpp"

namespace heft::rlwe {
namespace {

// Bit packing against a naive oracle: bit b of value i is bit i * width + b
// of the stream (least significant first), for every width from 1 to 64;
// unpacking gives the values back, and a value >= the bound is refused.
TEST(Serialization, BitPackingMatchesTheBitOrderAndRoundTrips) {
  std::mt19937_64 rng(5);
  for (int width = 1; width <= 64; ++width) {
    const uint64_t top = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    std::vector<uint64_t> values(1032);  // past the fast path's tail
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = i % 9 == 0 ? top - 1 : (i % 9 == 1 ? 0 : (rng() & top) % top);
    values[values.size() - 1] = top - 1;
    serial::ByteWriter writer;
    writer.packed(values, width);
    ASSERT_EQ(writer.buffer().size(), values.size() * static_cast<std::size_t>(width) / 8);
    for (std::size_t i = 0; i < values.size(); ++i) {
      for (int b = 0; b < width; ++b) {
        const std::size_t bit = i * static_cast<std::size_t>(width) + static_cast<std::size_t>(b);
        const int stored = (writer.buffer()[bit / 8] >> (bit % 8)) & 1;
        ASSERT_EQ(stored, static_cast<int>((values[i] >> b) & 1)) << "width " << width;
      }
    }
    std::vector<uint64_t> back(values.size());
    serial::ByteReader reader(writer.buffer());
    reader.packed(back, width, top, "test");  // every value is below top
    EXPECT_EQ(back, values) << "width " << width;
    reader.expect_end("test");
    // The same bits with a bound one lower: the values top - 1 are refused.
    serial::ByteReader strict(writer.buffer());
    EXPECT_THROW(strict.packed(back, width, top - 1, "test"), FormatError) << "width " << width;
  }
}

}  // namespace
}  // namespace heft::rlwe
