#include "data/test_images.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "core/counter_rng.h"
#include "core/error.h"

namespace mg {

namespace fs = std::filesystem;

RgbImage make_textured_image(int size, int label, int64_t index) {
  RgbImage img;
  img.width = img.height = size;
  img.pixels.resize(static_cast<size_t>(size) * size * 3);
  const uint64_t key = splitmix64((static_cast<uint64_t>(label) << 32) ^ static_cast<uint64_t>(index));
  float base[3], freq[3], phase[3];
  for (int c = 0; c < 3; ++c) {
    base[c] = 60.0f + 135.0f * counter_uniform(static_cast<uint64_t>(label) + 977, static_cast<uint64_t>(c));
    freq[c] = 0.02f + 0.2f * counter_uniform(key, static_cast<uint64_t>(c));
    phase[c] = 6.28f * counter_uniform(key, static_cast<uint64_t>(c) + 3);
  }
  for (int y = 0; y < size; ++y) {
    for (int x = 0; x < size; ++x) {
      const uint64_t p = static_cast<uint64_t>(y) * size + x;
      const float noise = 24.0f * (counter_uniform(key + 11, p) - 0.5f);
      for (int c = 0; c < 3; ++c) {
        const float shade = 50.0f * std::sin(freq[c] * x + phase[c]) * std::cos(freq[c] * 0.7f * y);
        const float v = base[c] + shade + noise;
        img.pixels[p * 3 + c] = static_cast<uint8_t>(std::fmin(255.0f, std::fmax(0.0f, v)));
      }
    }
  }
  return img;
}

void generate_image_folder(const std::string& dir, int64_t count, int size, int classes, int threads) {
  if (count < 1) throw UsageError("--count must be at least 1, got " + std::to_string(count));
  if (size < 8 || size > 8192) throw UsageError("--size must be in 8..8192, got " + std::to_string(size));
  if (classes < 1 || classes > 100000) throw UsageError("--classes must be in 1..100000, got " + std::to_string(classes));
  if (threads < 1) throw UsageError("--threads must be at least 1, got " + std::to_string(threads));
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec))) {
    throw UsageError("--generate-test-images: " + dir + " exists and is not an empty folder");
  }
  std::vector<std::string> class_dirs;
  for (int c = 0; c < classes; ++c) {
    char name[32];
    std::snprintf(name, sizeof name, "class_%04d", c);
    class_dirs.push_back((fs::path(dir) / name).string());
    fs::create_directories(class_dirs.back(), ec);
    if (ec) throw UsageError("cannot create " + class_dirs.back() + ": " + ec.message());
  }

  std::atomic<int64_t> next{0};
  std::mutex err_mu;
  std::exception_ptr err;
  auto work = [&] {
    try {
      JpegEncoder enc;
      for (int64_t i; (i = next.fetch_add(1)) < count;) {
        const int label = static_cast<int>(i % classes);
        const std::vector<uint8_t> jpeg = enc.encode(make_textured_image(size, label, i), 90, false);
        char name[32];
        std::snprintf(name, sizeof name, "img_%07lld.jpg", static_cast<long long>(i));
        const std::string path = (fs::path(class_dirs[static_cast<size_t>(label)]) / name).string();
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f) throw Error("cannot create " + path + ": " + std::strerror(errno));
        const bool ok = std::fwrite(jpeg.data(), 1, jpeg.size(), f) == jpeg.size();
        if ((std::fclose(f) != 0) || !ok) throw Error("cannot write " + path + ": " + std::strerror(errno));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lk(err_mu);
      if (!err) err = std::current_exception();
      next.store(count);  // stop the other workers
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace mg
