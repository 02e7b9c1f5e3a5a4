#include "data/record_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include "core/atomic_file.h"
#include "core/error.h"

namespace mg {

namespace {

// All integers are little-endian; mgbench runs on little-endian hosts (x86-64, aarch64), where this is a copy.
template <typename T>
void put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}
template <typename T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

RecordWriter::RecordWriter(const std::string& path)
    : path_(path), tmp_(path + ".tmp-" + std::to_string(::getpid())) {
  f_ = std::fopen(tmp_.c_str(), "wb");
  if (!f_) throw UsageError("cannot create record file " + path_ + ": " + errno_text());
  uint8_t zeros[kMgrecHeaderBytes] = {0};  // the real header is written by finish()
  try {
    write(zeros, sizeof zeros);
  } catch (...) {  // no destructor runs for a throwing constructor
    std::fclose(f_);
    std::remove(tmp_.c_str());
    throw;
  }
}

RecordWriter::~RecordWriter() {
  if (f_) {
    std::fclose(f_);
    std::remove(tmp_.c_str());
  }
}

void RecordWriter::write(const void* p, size_t n) {
  if (n && std::fwrite(p, 1, n, f_) != n) throw_write_error(path_, "write failed", errno);
  pos_ += n;
}

void RecordWriter::add(const uint8_t* jpeg, size_t size, int32_t label) {
  MG_ENSURE(f_ != nullptr, "RecordWriter::add after finish");
  if (size > std::numeric_limits<uint32_t>::max()) {
    throw Error("image of " + std::to_string(size) + " bytes is too large for " + path_);
  }
  index_.push_back(Entry{pos_, static_cast<uint32_t>(size), label});
  write(jpeg, size);
}

void RecordWriter::finish(const std::vector<std::string>& class_names) {
  MG_ENSURE(f_ != nullptr, "RecordWriter::finish twice");
  const uint64_t classes_offset = pos_;
  for (const auto& name : class_names) {
    uint8_t len[4];
    put<uint32_t>(len, static_cast<uint32_t>(name.size()));
    write(len, 4);
    write(name.data(), name.size());
  }
  const uint64_t index_offset = pos_;
  std::vector<uint8_t> idx(index_.size() * kMgrecIndexEntryBytes);
  for (size_t i = 0; i < index_.size(); ++i) {
    uint8_t* e = idx.data() + i * kMgrecIndexEntryBytes;
    put<uint64_t>(e, index_[i].offset);
    put<uint32_t>(e + 8, index_[i].size);
    put<int32_t>(e + 12, index_[i].label);
  }
  write(idx.data(), idx.size());

  uint8_t h[kMgrecHeaderBytes] = {0};
  std::memcpy(h, kMgrecMagic, 8);
  put<uint32_t>(h + 8, kMgrecVersion);
  put<uint32_t>(h + 12, static_cast<uint32_t>(class_names.size()));
  put<uint64_t>(h + 16, index_.size());
  put<uint64_t>(h + 24, classes_offset);
  put<uint64_t>(h + 32, index_offset);
  put<uint64_t>(h + 40, pos_);  // total file size, so truncation anywhere is detected on open
  if (std::fseek(f_, 0, SEEK_SET) != 0) throw_write_error(path_, "seek failed", errno);
  if (std::fwrite(h, 1, sizeof h, f_) != sizeof h) throw_write_error(path_, "write failed", errno);
  // Buffered data reaches the disk here: a full disk shows up as a failed flush, fsync or close.
  if (std::fflush(f_) != 0) throw_write_error(path_, "write failed", errno);
  if (::fsync(::fileno(f_)) != 0) throw_write_error(path_, "fsync failed", errno);
  const int rc = std::fclose(f_);
  const int close_err = errno;
  f_ = nullptr;
  if (rc != 0) {
    std::remove(tmp_.c_str());
    throw_write_error(path_, "close failed", close_err);
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw_write_error(path_, "rename failed", err);
  }
  // Persist the directory entry too, so a crash right after does not lose the rename.
  const size_t slash = path_.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path_.substr(0, slash));
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

namespace {

class RecordStore final : public SampleStore {
 public:
  explicit RecordStore(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw UsageError("cannot open record file " + path + ": " + errno_text());
    try {
      load();
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~RecordStore() override { ::close(fd_); }

  int64_t size() const override { return static_cast<int64_t>(offsets_.size()); }
  int32_t label(int64_t i) const override { return labels_[static_cast<size_t>(i)]; }
  int64_t num_classes() const override { return static_cast<int64_t>(classes_.size()); }
  std::string name(int64_t i) const override { return path_ + " record " + std::to_string(i); }
  std::string describe() const override {
    return "record file " + path_ + " (" + std::to_string(size()) + " images, " + std::to_string(num_classes()) +
           " classes)";
  }
  const std::vector<std::string>& classes() const { return classes_; }

  void read(int64_t i, std::vector<uint8_t>& bytes) const override {
    bytes.resize(sizes_[static_cast<size_t>(i)]);
    pread_all(bytes.data(), bytes.size(), offsets_[static_cast<size_t>(i)], name(i));
  }

 private:
  void pread_all(void* dst, size_t n, uint64_t off, const std::string& what) const {
    auto* p = static_cast<uint8_t*>(dst);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(off));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw Error("cannot read " + what + ": " + errno_text());
      if (got == 0) throw Error("cannot read " + what + ": unexpected end of file");
      p += got;
      n -= static_cast<size_t>(got);
      off += static_cast<uint64_t>(got);
    }
  }

  [[noreturn]] void bad(const std::string& why) const {
    throw UsageError("record file " + path_ + " is not a valid .mgrec file: " + why);
  }

  void load() {
    struct stat st;
    if (::fstat(fd_, &st) != 0) throw UsageError("cannot stat record file " + path_ + ": " + errno_text());
    const uint64_t file_size = static_cast<uint64_t>(st.st_size);
    if (file_size < kMgrecHeaderBytes) bad("shorter than its 64-byte header");
    uint8_t h[kMgrecHeaderBytes];
    pread_all(h, sizeof h, 0, path_);
    if (std::memcmp(h, kMgrecMagic, 8) != 0) bad("bad magic (expected MGRECORD)");
    const uint32_t version = get<uint32_t>(h + 8);
    if (version != kMgrecVersion) {
      bad("unsupported version " + std::to_string(version) + " (this mgbench reads version " +
          std::to_string(kMgrecVersion) + ")");
    }
    const uint32_t nclasses = get<uint32_t>(h + 12);
    const uint64_t count = get<uint64_t>(h + 16);
    const uint64_t classes_off = get<uint64_t>(h + 24);
    const uint64_t index_off = get<uint64_t>(h + 32);
    const uint64_t total = get<uint64_t>(h + 40);
    if (classes_off < kMgrecHeaderBytes || index_off < classes_off || total < index_off) bad("inconsistent offsets");
    if (count > (total - index_off) / kMgrecIndexEntryBytes || index_off + count * kMgrecIndexEntryBytes != total) {
      bad("index size does not match the header");
    }
    if (file_size < total) {
      bad("truncated index (file has " + std::to_string(file_size) + " bytes, header says " +
          std::to_string(total) + ")");
    }

    std::vector<uint8_t> buf(static_cast<size_t>(index_off - classes_off));
    pread_all(buf.data(), buf.size(), classes_off, path_);
    size_t p = 0;
    for (uint32_t c = 0; c < nclasses; ++c) {
      if (p + 4 > buf.size()) bad("truncated class table");
      const uint32_t len = get<uint32_t>(buf.data() + p);
      p += 4;
      if (p + len > buf.size()) bad("truncated class table");
      classes_.emplace_back(reinterpret_cast<const char*>(buf.data() + p), len);
      p += len;
    }

    buf.resize(static_cast<size_t>(count * kMgrecIndexEntryBytes));
    pread_all(buf.data(), buf.size(), index_off, path_);
    offsets_.resize(count);
    sizes_.resize(count);
    labels_.resize(count);
    for (uint64_t i = 0; i < count; ++i) {
      const uint8_t* e = buf.data() + i * kMgrecIndexEntryBytes;
      offsets_[i] = get<uint64_t>(e);
      sizes_[i] = get<uint32_t>(e + 8);
      labels_[i] = get<int32_t>(e + 12);
      if (offsets_[i] < kMgrecHeaderBytes || offsets_[i] + sizes_[i] > classes_off) {
        bad("index entry " + std::to_string(i) + " points outside the data section");
      }
      if (labels_[i] < 0 || static_cast<uint32_t>(labels_[i]) >= nclasses) {
        bad("index entry " + std::to_string(i) + " has label " + std::to_string(labels_[i]) + " outside 0.." +
            std::to_string(static_cast<int64_t>(nclasses) - 1));
      }
    }
  }

  std::string path_;
  int fd_ = -1;
  std::vector<std::string> classes_;
  std::vector<uint64_t> offsets_;
  std::vector<uint32_t> sizes_;
  std::vector<int32_t> labels_;
};

}  // namespace

std::unique_ptr<SampleStore> open_record_file(const std::string& path) {
  return std::make_unique<RecordStore>(path);
}

std::vector<std::string> record_class_names(const std::string& path) { return RecordStore(path).classes(); }

}  // namespace mg
