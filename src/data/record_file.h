// The .mgrec packed record format (specified in docs/mgrec.md): encoded JPEG bytes of every sample, the class
// names, and an index of (offset, size, label) at the end, so a reader seeks straight to any sample and one
// file replaces a million small-file opens.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "data/sample_store.h"

namespace mg {

inline constexpr char kMgrecMagic[8] = {'M', 'G', 'R', 'E', 'C', 'O', 'R', 'D'};
inline constexpr uint32_t kMgrecVersion = 1;
inline constexpr size_t kMgrecHeaderBytes = 64;
inline constexpr size_t kMgrecIndexEntryBytes = 16;

// Writes path atomically: everything goes to a temporary file beside it, which is renamed over path only in
// finish(), after an fsync; a writer destroyed without finish() (an error mid-way) removes the temporary, so
// a reader never sees a half-written record file.
class RecordWriter {
 public:
  explicit RecordWriter(const std::string& path);
  ~RecordWriter();
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  void add(const uint8_t* jpeg, size_t size, int32_t label);
  void finish(const std::vector<std::string>& class_names);
  int64_t count() const { return static_cast<int64_t>(index_.size()); }

 private:
  struct Entry {
    uint64_t offset;
    uint32_t size;
    int32_t label;
  };
  void write(const void* p, size_t n);

  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  uint64_t pos_ = 0;
  std::vector<Entry> index_;
};

// Opens and validates a record file (header, class table, full index). UsageError naming the path on a bad
// magic or version, a truncated file or index, or index entries pointing outside the data.
std::unique_ptr<SampleStore> open_record_file(const std::string& path);

// The class names stored in a record file (label i = names[i]).
std::vector<std::string> record_class_names(const std::string& path);

}  // namespace mg
