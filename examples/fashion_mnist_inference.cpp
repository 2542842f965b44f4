// Encrypted Fashion-MNIST inference in C++, client and server as separate
// roles that exchange only bytes:
//  - the client makes the keys (N = 8192, primes [34, 25 x 6, 34], scale
//    2^25, 128-bit secure, power-of-two Galois keys) and sends the server the public
//    context (evaluation keys, no secret key) and one im2col-encoded
//    ciphertext per image;
//  - the server loads them, runs the model (TenSEAL's tutorial network,
//    trained in plaintext by models/train_fashion_mnist.py) and returns the
//    encrypted logits as bytes;
//  - the client decrypts them.
// The same network in doubles is the oracle: the example reports how often
// the encrypted and plain predictions agree, the accuracy of each against
// the test labels, the logits' largest error, bytes each way and the time
// of each step; then throughput mode: 4096 test images in one evaluation,
// one image per slot (MnistNetwork::evaluate_batch), through bytes too.
//
//   heft_inference [--images N (100)] [--batch N (4096)]
//                  [--model models/fashion_mnist_tutorial.txt]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fashion_mnist.hpp"
#include "heft/tensor/mnist_network.hpp"
#include "heft/util/parallel.hpp"

namespace {

using heft::tensor::CKKSVector;
using heft::tensor::Matrix;
using heft::tensor::MnistNetwork;
using heft::tensor::TensorContext;
using Clock = std::chrono::steady_clock;

const char* kClasses[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A model file of models/train_fashion_mnist.py: one array per line,
// "name rank dims... values...".
struct Model {
  MnistNetwork net;
  double mean = 0, deviation = 1;
};

Model read_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open the model " + path);
  Model model;
  std::string line;
  const auto rows_of = [](const std::vector<double>& values, std::size_t rows, std::size_t cols) {
    Matrix m(rows, std::vector<double>(cols));
    for (std::size_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < cols; ++c)
        m[r][c] = values[r * cols + c];
    return m;
  };
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name;
    std::size_t rank = 0;
    fields >> name >> rank;
    std::vector<std::size_t> dims(rank);
    std::size_t count = 1;
    for (auto& d : dims) {
      fields >> d;
      count *= d;
    }
    std::vector<double> values(count);
    for (auto& v : values)
      fields >> v;
    if (!fields) throw std::runtime_error(path + ": a malformed line for " + name);
    if (name == "normalisation") {
      model.mean = values.at(0);
      model.deviation = values.at(1);
    } else if (name == "conv_kernels") {
      for (std::size_t c = 0; c < dims.at(0); ++c)
        model.net.conv_kernels.push_back(rows_of(
            std::vector<double>(values.begin() + c * 49, values.begin() + (c + 1) * 49), 7, 7));
    } else if (name == "conv_bias") {
      model.net.conv_bias = values;
    } else if (name == "fc1") {
      model.net.fc1 = rows_of(values, dims.at(0), dims.at(1));
    } else if (name == "fc1_bias") {
      model.net.fc1_bias = values;
    } else if (name == "fc2") {
      model.net.fc2 = rows_of(values, dims.at(0), dims.at(1));
    } else if (name == "fc2_bias") {
      model.net.fc2_bias = values;
    }
  }
  model.net.validate();  // InvalidArgument naming the part of the wrong shape
  return model;
}

std::size_t argmax(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 100, batch_count = 4096;
  std::string model_path = HEFT_MODEL_PATH;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--images") {
      count = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--batch") {
      batch_count = std::strtoull(argv[i + 1], nullptr, 10);
    } else if (flag == "--model") {
      model_path = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: %s [--images N] [--batch N] [--model PATH]\n", argv[0]);
      return 2;
    }
  }
  try {
    const Model model = read_model(model_path);
    if (count == 0 || batch_count == 0 || batch_count > 4096)
      throw std::invalid_argument("--images must be positive, --batch in [1, 4096] (N/2 slots)");
    const std::size_t read = std::max(count, batch_count);
    const auto pixels =
        heft::testing::read_idx_images(heft::testing::kFashionMnistTestImages, read);
    const auto labels =
        heft::testing::read_idx_labels(heft::testing::kFashionMnistTestLabels, read);
    std::vector<Matrix> images;
    for (const auto& image : pixels) {
      Matrix m;
      for (const auto& row : image) {
        m.emplace_back();
        for (const uint8_t p : row)
          m.back().push_back((p / 255.0 - model.mean) / model.deviation);
      }
      images.push_back(std::move(m));
    }
    std::printf("heft encrypted inference: %zu Fashion-MNIST test images, %zu threads\n", count,
                heft::num_threads());

    // Client: keys, and the public part of the context for the server.
    auto start = Clock::now();
    // TenSEAL's tutorial context shape with 25-bit scales: 34 + 6 x 25 + 34
    // = 218 bits, the most N = 8192 allows at 128-bit security, so the logits
    // (up to about 50 for this model) keep 2^-25 relative precision.
    heft::tensor::TenSEALArguments arguments;
    arguments.poly_modulus_degree = 8192;
    arguments.coeff_mod_bit_sizes = {34, 25, 25, 25, 25, 25, 25, 34};
    arguments.global_scale = std::ldexp(1.0, 25);
    const auto client = TensorContext::create(arguments);
    client->generate_galois_keys();
    TensorContext::SaveParts public_parts;
    public_parts.secret_key = false;
    const auto public_context = client->serialize(public_parts);
    const double keygen_s = seconds_since(start);
    // Server: the public context only.
    start = Clock::now();
    const auto server = TensorContext::load(public_context);
    std::printf(
        "client: keys made in %.2f s; public context sent: %.1f MiB (no secret key), "
        "loaded by the server in %.2f s\n",
        keygen_s, public_context.size() / 1048576.0, seconds_since(start));

    double encrypt_s = 0, server_s = 0, decrypt_s = 0, worst = 0;
    std::size_t sent = 0, received = 0, agree = 0, right = 0, right_plain = 0;
    for (std::size_t i = 0; i < count; ++i) {
      start = Clock::now();
      const auto request = MnistNetwork::encrypt(client, images[i]).serialize();
      encrypt_s += seconds_since(start);
      start = Clock::now();
      const auto answer =
          model.net.evaluate(CKKSVector::load(server, request)).serialize();  // server side
      const double served = seconds_since(start);
      server_s += served;
      start = Clock::now();
      const auto logits = CKKSVector::load(client, answer).decrypt();
      decrypt_s += seconds_since(start);
      sent += request.size();
      received += answer.size();
      const auto want = model.net.evaluate_plain(images[i]);
      double largest = 1;
      for (std::size_t j = 0; j < want.size(); ++j) {
        largest = std::max(largest, std::abs(want[j]));
        worst = std::max(worst, std::abs(logits[j] - want[j]));
      }
      const std::size_t guess = argmax(logits), plain_guess = argmax(want);
      agree += guess == plain_guess;
      right += guess == labels[i];
      right_plain += plain_guess == labels[i];
      if (i < 5)
        std::printf("image %zu: encrypted says %s, plain says %s, label %s (server %.0f ms)\n", i,
                    kClasses[guess], kClasses[plain_guess], kClasses[labels[i]], served * 1e3);
    }
    const double n = static_cast<double>(count);
    std::printf("\nlatency mode, one image per request:\n");
    std::printf(
        "  encrypted accuracy %.1f%%, plain accuracy %.1f%%, predictions agree on %zu/%zu\n",
        100 * right / n, 100 * right_plain / n, agree, count);
    std::printf("  largest logit error %.2e\n", worst);
    std::printf("  per image: encrypt %.1f ms, server %.1f ms, decrypt %.1f ms\n",
                1e3 * encrypt_s / n, 1e3 * server_s / n, 1e3 * decrypt_s / n);
    std::printf("  bytes per image: client -> server %.0f KiB, server -> client %.0f KiB\n",
                sent / n / 1024, received / n / 1024);

    // Throughput mode: every image in one evaluation, one per slot, through
    // bytes as above.
    start = Clock::now();
    const std::vector<Matrix> batch(images.begin(), images.begin() + batch_count);
    const auto batch_request = MnistNetwork::encrypt_batch(client, batch).serialize();
    const double batch_encrypt_s = seconds_since(start);
    start = Clock::now();
    const auto batch_answer =
        model.net.evaluate_batch(heft::tensor::CKKSTensor::load(server, batch_request)).serialize();
    const double batch_s = seconds_since(start);
    const auto decrypted = heft::tensor::CKKSTensor::load(client, batch_answer).decrypt();
    std::size_t batch_agree = 0, batch_right = 0, batch_right_plain = 0;
    for (std::size_t i = 0; i < batch_count; ++i) {
      std::vector<double> row(decrypted.data().begin() + i * 10,
                              decrypted.data().begin() + (i + 1) * 10);
      const std::size_t guess = argmax(row),
                        plain_guess = argmax(model.net.evaluate_plain(images[i]));
      batch_agree += guess == plain_guess;
      batch_right += guess == labels[i];
      batch_right_plain += plain_guess == labels[i];
    }
    const double nb = static_cast<double>(batch_count);
    std::printf("\nthroughput mode, %zu images in one evaluation, one per slot:\n", batch_count);
    std::printf(
        "  encrypted accuracy %.1f%%, plain accuracy %.1f%%, predictions agree on %zu/%zu\n",
        100 * batch_right / nb, 100 * batch_right_plain / nb, batch_agree, batch_count);
    std::printf("  encrypt %.2f s, server %.2f s: %.0f images/s; %.0f MiB sent, %.1f MiB back\n",
                batch_encrypt_s, batch_s, nb / batch_s, batch_request.size() / 1048576.0,
                batch_answer.size() / 1048576.0);
    // CKKS is approximate: an image whose two best logits are closer than
    // the error may flip; more than a few such images means a defect.
    if (agree < 0.95 * n || batch_agree < 0.95 * nb) {
      std::fprintf(stderr, "the encrypted and plain predictions differ on over 5%% of images\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heft_inference: %s\n", e.what());
    return 1;
  }
  return 0;
}
