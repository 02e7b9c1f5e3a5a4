#include "data/token_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "data/sharding.h"

namespace mg {

namespace {

// A read-only mapping of the whole file, shared by every replica's source through the page cache.
class TokenMapping {
 public:
  explicit TokenMapping(const std::string& path) {
    // O_NONBLOCK: a FIFO named like a token file must not block the open; anything but a file is refused below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw UsageError("cannot open token file " + path + ": " + std::strerror(errno));
    struct stat st {};
    const bool stat_failed = ::fstat(fd, &st) != 0;
    const int err = errno;
    if (stat_failed || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UsageError(stat_failed ? "cannot stat token file " + path + ": " + std::strerror(err)
                                   : "token file " + path + " is not a regular file");
    }
    bytes_ = static_cast<size_t>(st.st_size);
    identity_ = {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), bytes_,
                 static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    if (bytes_ > 0) {
      void* p = ::mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd, 0);
      const int err = errno;
      ::close(fd);
      if (p == MAP_FAILED) throw UsageError("cannot map token file " + path + ": " + std::strerror(err));
      data_ = static_cast<const uint8_t*>(p);
    } else {
      ::close(fd);
    }
  }
  ~TokenMapping() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), bytes_);
  }
  TokenMapping(const TokenMapping&) = delete;
  TokenMapping& operator=(const TokenMapping&) = delete;

  using Identity = std::tuple<uint64_t, uint64_t, size_t, int64_t>;  // device, inode, size, mtime (ns)

  const uint8_t* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  const Identity& identity() const { return identity_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  Identity identity_;
};

// Token i of a payload of uint16 (width 2) or uint32 (width 4) tokens.
uint64_t token_at(const uint8_t* payload, int64_t i, size_t width) {
  const uint8_t* p = payload + static_cast<size_t>(i) * width;
  if (width == 2) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::atomic<int64_t> g_scans{0};

struct TokenScan {
  uint64_t largest = 0;
};

// The largest token of a file, scanned once for all the sources open on it at a time (the replicas of a run):
// a GPT-2 corpus of billions of tokens takes seconds to scan. The scan lives as long as those sources, so a file
// rewritten between runs is scanned again.
std::shared_ptr<const TokenScan> shared_scan(const TokenMapping& map, const uint8_t* payload, int64_t tokens,
                                             size_t width) {
  static std::mutex mu;
  static std::map<TokenMapping::Identity, std::weak_ptr<const TokenScan>> live;
  const std::lock_guard<std::mutex> lock(mu);
  std::weak_ptr<const TokenScan>& slot = live[map.identity()];
  if (auto scan = slot.lock()) return scan;
  auto scan = std::make_shared<TokenScan>();
  for (int64_t i = 0; i < tokens; ++i) scan->largest = std::max(scan->largest, token_at(payload, i, width));
  ++g_scans;
  slot = scan;
  return scan;
}

int32_t header_int(const uint8_t* p, size_t i) {
  int32_t v;
  std::memcpy(&v, p + i * sizeof(int32_t), sizeof v);
  return v;
}

class TokenFileSource final : public DataSource {
 public:
  explicit TokenFileSource(const DataSpec& spec) : spec_(spec), map_(spec.path) {
    const size_t header = kTokenHeaderInts * sizeof(int32_t);
    if (map_.bytes() < header) bad("shorter than its " + std::to_string(header) + "-byte header");
    const int32_t magic = header_int(map_.data(), 0), version = header_int(map_.data(), 1);
    int32_t want_version = 0;
    if (magic == kTokenMagicU16) {
      width_ = 2, want_version = kTokenVersionU16;
    } else if (magic == kTokenMagicU32) {
      width_ = 4, want_version = kTokenVersionU32;
    } else {
      bad("bad magic " + std::to_string(magic) + " (expected " + std::to_string(kTokenMagicU16) + " or " +
          std::to_string(kTokenMagicU32) + ")");
    }
    if (version != want_version) {
      bad("unsupported version " + std::to_string(version) + " for magic " + std::to_string(magic) + " (expected " +
          std::to_string(want_version) + ")");
    }
    const int32_t count = header_int(map_.data(), 2);
    if (count < 0) bad("negative token count " + std::to_string(count));
    tokens_ = count;
    const size_t want = header + static_cast<size_t>(tokens_) * width_;
    if (map_.bytes() != want) {
      bad("the header says " + std::to_string(tokens_) + " tokens (" + std::to_string(want) +
          " bytes) but the file has " + std::to_string(map_.bytes()) + " bytes");
    }
    payload_ = map_.data() + header;
    // Every token must index the model's embedding and logits: check once here, not per batch; the slow search
    // for the first offender only to name it.
    const uint64_t vocab = static_cast<uint64_t>(spec_.num_classes);
    scan_ = shared_scan(map_, payload_, tokens_, width_);
    for (int64_t i = 0; scan_->largest >= vocab && i < tokens_; ++i) {
      if (token(i) >= vocab) {
        throw UsageError("token file " + spec_.path + ": token " + std::to_string(i) + " is " +
                         std::to_string(token(i)) + ", outside the model's vocabulary of " +
                         std::to_string(spec_.num_classes));
      }
    }
    windows_ = tokens_ > spec_.seq_len ? (tokens_ - 1) / spec_.seq_len : 0;
    sharder_ = std::make_unique<EpochSharder>(windows_, spec_.batch_size, spec_.shard, spec_.num_shards, spec_.seed,
                                              describe());
  }

  void next(void* inputs, int32_t* labels) override {
    auto* ids = static_cast<int32_t*>(inputs);
    const int64_t t = spec_.seq_len;
    const std::vector<SampleRef> refs = sharder_->batch(step_++);
    for (size_t n = 0; n < refs.size(); ++n) {
      const int64_t first = refs[n].index * t;
      for (int64_t k = 0; k < t; ++k) {
        ids[static_cast<int64_t>(n) * t + k] = static_cast<int32_t>(token(first + k));
        labels[static_cast<int64_t>(n) * t + k] = static_cast<int32_t>(token(first + k + 1));
      }
    }
  }

  int64_t samples_per_epoch() const override { return windows_; }
  int64_t num_classes() const override { return spec_.num_classes; }
  std::string describe() const override {
    return "token file " + spec_.path + " (" + std::to_string(tokens_) + " tokens, " + std::to_string(windows_) +
           " sequences of " + std::to_string(spec_.seq_len) + ")";
  }

 private:
  uint64_t token(int64_t i) const { return token_at(payload_, i, width_); }

  [[noreturn]] void bad(const std::string& why) const {
    throw UsageError("token file " + spec_.path + " is not a valid token file: " + why);
  }

  DataSpec spec_;
  TokenMapping map_;
  std::shared_ptr<const TokenScan> scan_;
  const uint8_t* payload_ = nullptr;
  size_t width_ = 2;
  int64_t tokens_ = 0, windows_ = 0, step_ = 0;
  std::unique_ptr<EpochSharder> sharder_;
};

}  // namespace

int64_t token_file_scans() { return g_scans.load(); }

std::unique_ptr<DataSource> make_token_file_source(const DataSpec& spec) {
  MG_ENSURE(spec.seq_len > 0, "a token file source needs a sequence length");
  return std::make_unique<TokenFileSource>(spec);
}

}  // namespace mg
