// Reads images and labels of Debian's dataset-fashion-mnist (gzip-compressed
// IDX files under /usr/share/datasets/fashion-mnist) through `gzip -dc`, for
// the tests, benchmarks and the inference example that run the MNIST network
// on real images. A missing file is an error that says which package
// provides it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace heft::testing {

inline const char* kFashionMnistTestImages =
    "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
inline const char* kFashionMnistTestLabels =
    "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";

// The first `count` images (rows of pixels 0..255) of an IDX3 file.
// std::runtime_error when the file is absent (naming the package) or
// malformed.
inline std::vector<std::vector<std::vector<uint8_t>>> read_idx_images(const std::string& path,
                                                                      std::size_t count) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error(path +
                             " is missing: apt-get install dataset-fashion-mnist (Debian's "
                             "Fashion-MNIST, the images this test runs on)");
  FILE* pipe = popen(("gzip -dc '" + path + "'").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run gzip -dc on " + path);
  const auto read_u32 = [&] {
    unsigned char b[4];
    if (std::fread(b, 1, 4, pipe) != 4) return uint32_t{0};
    return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | uint32_t{b[3]};
  };
  // Big-endian header: magic 0x00000803 (unsigned bytes, 3 dimensions),
  // then the image count, rows, columns.
  const uint32_t magic = read_u32(), images = read_u32(), rows = read_u32(), cols = read_u32();
  std::vector<std::vector<std::vector<uint8_t>>> out;
  bool complete = magic == 0x803 && count <= images && rows > 0 && cols > 0;
  for (std::size_t i = 0; complete && i < count; ++i) {
    std::vector<std::vector<uint8_t>> image(rows, std::vector<uint8_t>(cols));
    for (auto& row : image)
      complete = complete && std::fread(row.data(), 1, cols, pipe) == cols;
    out.push_back(std::move(image));
  }
  pclose(pipe);  // gzip may complain of the pipe closed early: not an error here
  if (!complete)
    throw std::runtime_error(path + " is not an IDX3 file of at least " + std::to_string(count) +
                             " images");
  return out;
}

// The first `count` labels (0..9) of an IDX1 file; errors as read_idx_images.
inline std::vector<uint8_t> read_idx_labels(const std::string& path, std::size_t count) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error(path + " is missing: apt-get install dataset-fashion-mnist");
  FILE* pipe = popen(("gzip -dc '" + path + "'").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run gzip -dc on " + path);
  unsigned char header[8];
  bool complete = std::fread(header, 1, 8, pipe) == 8 && header[2] == 0x08 && header[3] == 0x01;
  std::vector<uint8_t> labels(count);
  complete = complete && std::fread(labels.data(), 1, count, pipe) == count;
  pclose(pipe);
  if (!complete)
    throw std::runtime_error(path + " is not an IDX1 file of at least " + std::to_string(count) +
                             " labels");
  return labels;
}

}  // namespace heft::testing
