#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/record_file.h"
#include "data_test_util.h"

using namespace mg;

namespace {
std::string write_record(const test::TempDir& d, int n) {
  const std::string path = d / "r.mgrec";
  RecordWriter w(path);
  for (int i = 0; i < n; ++i) {
    const auto j = test::solid_jpeg(i, 16, 16);
    w.add(j.data(), j.size(), i % 3);
  }
  w.finish({"cat", "dog", "eel"});
  return path;
}
void patch(const std::string& path, long off, const void* p, size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(off);
  f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
}
}  // namespace

TEST_CASE("mgrec: writer and reader round trip bytes, labels and class names") {
  test::TempDir d;
  const std::string path = write_record(d, 20);
  auto s = open_record_file(path);
  REQUIRE(s->size() == 20);
  REQUIRE(s->num_classes() == 3);
  REQUIRE(record_class_names(path) == std::vector<std::string>{"cat", "dog", "eel"});
  std::vector<uint8_t> b;
  // Random access in reverse order: the index lets the reader seek anywhere.
  for (int i = 19; i >= 0; --i) {
    s->read(i, b);
    REQUIRE(b == test::solid_jpeg(i, 16, 16));
    REQUIRE(s->label(i) == i % 3);
  }
  REQUIRE_FALSE(std::filesystem::exists(path + ".tmp-" + std::to_string(getpid())));
}

TEST_CASE("mgrec: an abandoned writer leaves no file behind") {
  test::TempDir d;
  {
    RecordWriter w(d / "x.mgrec");
    const auto j = test::solid_jpeg(1, 8, 8);
    w.add(j.data(), j.size(), 0);
  }
  REQUIRE(std::filesystem::is_empty(d.path()));
}

TEST_CASE("mgrec: bad magic, bad version, truncated index and garbage are usage errors naming the file") {
  test::TempDir d;
  const std::string path = write_record(d, 5);

  SECTION("bad magic") {
    patch(path, 0, "NOTMGREC", 8);
    REQUIRE_THROWS_AS(open_record_file(path), UsageError);
    REQUIRE_THROWS_WITH(open_record_file(path), Catch::Contains(path) && Catch::Contains("magic"));
  }
  SECTION("bad version") {
    const uint32_t v = 99;
    patch(path, 8, &v, 4);
    REQUIRE_THROWS_WITH(open_record_file(path), Catch::Contains(path) && Catch::Contains("version 99"));
  }
  SECTION("truncated index") {
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 7);
    REQUIRE_THROWS_AS(open_record_file(path), UsageError);
    REQUIRE_THROWS_WITH(open_record_file(path), Catch::Contains(path) && Catch::Contains("truncated"));
  }
  SECTION("index entry outside the data") {
    // Entry 0 of the index sits 5 entries before the end; point it far past the data section.
    const uint64_t off = 1u << 30;
    patch(path, long(std::filesystem::file_size(path) - 5 * kMgrecIndexEntryBytes), &off, 8);
    REQUIRE_THROWS_WITH(open_record_file(path), Catch::Contains("index entry 0"));
  }
  SECTION("too short and missing") {
    test::write_file(d / "short.mgrec", {1, 2, 3});
    REQUIRE_THROWS_AS(open_record_file(d / "short.mgrec"), UsageError);
    REQUIRE_THROWS_WITH(open_record_file(d / "none.mgrec"), Catch::Contains("none.mgrec"));
  }
}
