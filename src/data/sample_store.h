// Random access to a dataset's encoded samples (JPEG bytes + label), whatever holds them: an image folder or a
// .mgrec record file. The decode pool reads through this from several threads at once, so read() must be
// safe to call concurrently.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mg {

class SampleStore {
 public:
  virtual ~SampleStore() = default;
  virtual int64_t size() const = 0;
  virtual int32_t label(int64_t i) const = 0;
  virtual int64_t num_classes() const = 0;
  // Replaces bytes with sample i's encoded image. Throws Error naming the file on an I/O failure.
  virtual void read(int64_t i, std::vector<uint8_t>& bytes) const = 0;
  // What to name in an error about sample i (a file path, or "FILE.mgrec record N").
  virtual std::string name(int64_t i) const = 0;
  virtual std::string describe() const = 0;
};

}  // namespace mg
