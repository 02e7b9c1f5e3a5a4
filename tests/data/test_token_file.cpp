// Token files (llm.c's layout) as a language model's data: windows of seq_len + 1 tokens, labels one token
// later, every window once per epoch over the shards, and every malformed file refused naming what is wrong.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <vector>

#include "core/error.h"
#include "data/data_source.h"
#include "data/token_file.h"
#include "support/shard_spec.h"
#include "support/temp_dir.h"

using namespace mg;

namespace {

// A token file with the given header fields and tokens of `width` bytes, whatever the header claims.
void write_tokens(const std::string& path, const std::vector<uint32_t>& tokens, int width = 2,
                  int32_t magic = kTokenMagicU16, int32_t version = -1, int64_t count = -1) {
  if (version < 0) version = magic == kTokenMagicU32 ? kTokenVersionU32 : kTokenVersionU16;
  std::vector<int32_t> header(kTokenHeaderInts, 0);
  header[0] = magic;
  header[1] = version;
  header[2] = static_cast<int32_t>(count < 0 ? static_cast<int64_t>(tokens.size()) : count);
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size() * 4));
  for (const uint32_t t : tokens) {
    const uint16_t s = static_cast<uint16_t>(t);
    if (width == 2) f.write(reinterpret_cast<const char*>(&s), 2);
    else f.write(reinterpret_cast<const char*>(&t), 4);
  }
}

DataSpec token_spec(const std::string& path, int64_t batch, int64_t seq, int shard = 0, int shards = 1) {
  DataSpec s = test::shard_spec(path, batch, shard, shards);
  s.seq_len = seq;
  s.num_classes = 1000;
  return s;
}

std::vector<uint32_t> ramp(size_t n) {
  std::vector<uint32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<uint32_t>(i % 1000);
  return t;
}

}  // namespace

TEST_CASE("token file: each sample is a window of the file and its labels are the tokens one later") {
  test::TempDir dir;
  for (const int width : {2, 4}) {
    INFO("token width " << width);
    const std::string path = dir / ("t" + std::to_string(width) + ".bin");
    write_tokens(path, ramp(161), width, width == 2 ? kTokenMagicU16 : kTokenMagicU32);
    auto src = make_data_source(token_spec(path, 2, 8));
    CHECK(src->samples_per_epoch() == 20);  // (161 - 1) / 8 windows
    std::vector<int32_t> ids(16), labels(16);
    src->next(ids.data(), labels.data());
    for (int r = 0; r < 2; ++r) {
      const int32_t first = ids[static_cast<size_t>(r * 8)];
      CHECK(first % 8 == 0);  // windows start every seq_len tokens
      for (int k = 0; k < 8; ++k) {
        CHECK(ids[static_cast<size_t>(r * 8 + k)] == first + k);
        CHECK(labels[static_cast<size_t>(r * 8 + k)] == first + k + 1);
      }
    }
  }
}

TEST_CASE("token file: over an epoch two shards read every window exactly once") {
  test::TempDir dir;
  const std::string path = dir / "t.bin";
  write_tokens(path, ramp(4 * 12 + 1), 2);  // 12 windows of 4: three global batches of 2 x 2
  std::map<int32_t, int> seen;
  for (int shard = 0; shard < 2; ++shard) {
    auto src = make_data_source(token_spec(path, 2, 4, shard, 2));
    std::vector<int32_t> ids(8), labels(8);
    for (int step = 0; step < 3; ++step) {
      src->next(ids.data(), labels.data());
      for (int r = 0; r < 2; ++r) ++seen[ids[static_cast<size_t>(r * 4)]];
    }
  }
  REQUIRE(seen.size() == 12);
  for (const auto& [first, n] : seen) CHECK(n == 1);
}

TEST_CASE("token file: malformed files and mismatched models are refused with the reason") {
  test::TempDir dir;
  const std::string path = dir / "bad.bin";
  const auto refused = [&](const DataSpec& spec, const std::string& why) {
    REQUIRE_THROWS_AS(make_data_source(spec), UsageError);
    REQUIRE_THROWS_WITH(make_data_source(spec), Catch::Contains(why));
  };
  write_tokens(path, ramp(100), 2, 12345);
  refused(token_spec(path, 1, 8), "bad magic 12345");
  write_tokens(path, ramp(100), 2, kTokenMagicU16, 2);
  refused(token_spec(path, 1, 8), "unsupported version 2 for magic 20240520 (expected 1)");
  write_tokens(path, ramp(100), 4, kTokenMagicU32, 1);  // llm.c writes its uint32 files as version 7
  refused(token_spec(path, 1, 8), "unsupported version 1 for magic 20240801 (expected 7)");
  write_tokens(path, ramp(100), 2, kTokenMagicU16, 1, 101);
  refused(token_spec(path, 1, 8), "the header says 101 tokens");
  write_tokens(path, ramp(100), 4, kTokenMagicU16);  // uint32 tokens under the uint16 magic
  refused(token_spec(path, 1, 8), "the header says 100 tokens");
  {
    std::ofstream f(path, std::ios::binary);
    f << "short";
  }
  refused(token_spec(path, 1, 8), "shorter than its 1024-byte header");
  std::vector<uint32_t> tokens = ramp(100);
  tokens[57] = 256;
  write_tokens(path, tokens, 2);
  DataSpec small = token_spec(path, 1, 8);
  small.num_classes = 256;
  refused(small, "token 57 is 256, outside the model's vocabulary of 256");
  write_tokens(path, ramp(100), 2);
  refused(token_spec(path, 13, 8), "fewer than one global batch");  // 12 windows of 8
  refused(token_spec(dir / "missing.bin", 1, 8), "cannot open token file");
  std::filesystem::create_directory(dir / "folder.bin");
  refused(token_spec(dir / "folder.bin", 1, 8), "is not a regular file");
  DataSpec images = token_spec(path, 1, 0);
  images.image_size = 8;
  refused(images, "holds tokens: it is for language models");
  refused(token_spec(dir.path(), 1, 8), "a language model reads a token file");
}

TEST_CASE("token file: the vocabulary scan runs once for the replicas open on a file, again after a rewrite") {
  test::TempDir dir;
  const std::string path = dir / "once.bin";
  write_tokens(path, ramp(100), 2);
  const int64_t before = token_file_scans();
  {
    std::vector<std::unique_ptr<DataSource>> replicas;
    for (int shard = 0; shard < 2; ++shard) replicas.push_back(make_data_source(token_spec(path, 1, 8, shard, 2)));
    CHECK(token_file_scans() == before + 1);
    // A model with a smaller vocabulary reads the same scan, and is refused naming the first offender.
    DataSpec small = token_spec(path, 1, 8);
    small.num_classes = 50;
    CHECK_THROWS_WITH(make_data_source(small), Catch::Contains("token 50 is 50, outside the model's vocabulary of 50"));
    CHECK(token_file_scans() == before + 1);
  }
  // Rewritten in place (same inode and size, and maybe the same coarse mtime) once no source is open: scanned
  // afresh, so the new out-of-vocabulary token is seen.
  std::vector<uint32_t> tokens = ramp(100);
  tokens[7] = 999;
  const auto stamp = std::filesystem::last_write_time(path);
  write_tokens(path, tokens, 2);
  std::filesystem::last_write_time(path, stamp);  // as a rewrite within one tick of the file clock leaves it
  DataSpec small = token_spec(path, 1, 8);
  small.num_classes = 100;
  CHECK_THROWS_WITH(make_data_source(small), Catch::Contains("token 7 is 999, outside the model's vocabulary of 100"));
  CHECK(token_file_scans() == before + 2);
}

TEST_CASE("synthetic tokens: ids inside the vocabulary, labels the next id of the row, new ones every batch") {
  DataSpec spec;
  spec.batch_size = 3;
  spec.seq_len = 16;
  spec.num_classes = 50;
  auto src = make_data_source(spec);
  const Tensor in = batch_inputs(spec), lab = batch_labels(spec);
  CHECK(in.shape == Shape({3, 16}));
  CHECK(in.dtype == DType::I32);
  CHECK(lab.shape == Shape({48}));
  std::vector<int32_t> ids(48), labels(48), ids2(48), labels2(48);
  src->next(ids.data(), labels.data());
  src->next(ids2.data(), labels2.data());
  CHECK(ids != ids2);
  std::set<int32_t> values(ids.begin(), ids.end());
  CHECK(values.size() > 20);  // spread over the vocabulary, not a constant
  for (size_t r = 0; r < 3; ++r) {
    for (size_t k = 0; k < 16; ++k) {
      CHECK(ids[r * 16 + k] >= 0);
      CHECK(ids[r * 16 + k] < 50);
      if (k + 1 < 16) CHECK(labels[r * 16 + k] == ids[r * 16 + k + 1]);
    }
  }
}
