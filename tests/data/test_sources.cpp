#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <thread>

#include "core/error.h"
#include "data/data_source.h"
#include "data/image_folder.h"
#include "data/record_file.h"
#include "data_test_util.h"
#include "support/shard_spec.h"

using namespace mg;

namespace {
constexpr int64_t kSize = 12;  // output image size

DataSpec spec_for(const std::string& path, int64_t batch, int shard = 0, int shards = 1, uint64_t seed = 1) {
  DataSpec s = test::shard_spec(path, batch, shard, shards);
  s.image_size = kSize;
  s.num_classes = 10;
  s.seed = seed;
  s.threads = 2;
  return s;
}

// Pulls one batch and returns the sample ids read back from the pixels, checking each label matches its id.
std::vector<int> pull_ids(DataSource& src, int64_t batch, int per_class) {
  std::vector<float> img(size_t(batch * kSize * kSize * 3));
  std::vector<int32_t> lab(static_cast<size_t>(batch));
  src.next(img.data(), lab.data());
  std::vector<int> ids;
  for (int64_t i = 0; i < batch; ++i) {
    const int id = test::id_from_image(img.data() + i * kSize * kSize * 3, kSize);
    REQUIRE(id >= 0);
    REQUIRE(lab[size_t(i)] == id / per_class);
    ids.push_back(id);
  }
  return ids;
}

void pack(const std::string& dir, const std::string& out) {
  const FolderIndex idx = scan_image_folder(dir);
  auto store = make_folder_store(idx);
  RecordWriter w(out);
  std::vector<uint8_t> b;
  for (int64_t i = 0; i < store->size(); ++i) {
    store->read(i, b);
    w.add(b.data(), b.size(), store->label(i));
  }
  w.finish(idx.classes);
}
}  // namespace

TEST_CASE("sources: folder scan sorts classes into labels and finds JPEGs by extension") {
  test::TempDir d;
  test::make_id_folder(d.path(), 3, 2);
  test::write_file(d / "class_01/readme.txt", {1, 2});
  test::write_file(d / "class_02/UPPER.JPEG", test::solid_jpeg(0, 8, 8));
  const FolderIndex idx = scan_image_folder(d.path());
  REQUIRE(idx.classes == std::vector<std::string>{"class_00", "class_01", "class_02"});
  REQUIRE(idx.files.size() == 7);
  REQUIRE(idx.labels == std::vector<int32_t>{0, 0, 1, 1, 2, 2, 2});
}

TEST_CASE("sources: labels stay attached through decode and augmentation, folder and record, 1-4 shards") {
  test::TempDir d;
  const int classes = 4, per_class = 6;  // 24 samples
  test::make_id_folder(d / "imgs", classes, per_class);
  pack(d / "imgs", d / "all.mgrec");
  for (const std::string& path : {d / "imgs", d / "all.mgrec"}) {
    for (int shards = 1; shards <= 4; ++shards) {
      const int64_t batch = 3;
      std::vector<std::unique_ptr<DataSource>> srcs;
      for (int s = 0; s < shards; ++s) srcs.push_back(make_data_source(spec_for(path, batch, s, shards)));
      REQUIRE(srcs[0]->samples_per_epoch() == 24);
      REQUIRE(srcs[0]->num_classes() == classes);
      // The first 24 stream positions (global steps in order, shards in order) are epoch 0: each id once.
      std::map<int, int> count;
      int64_t taken = 0;
      while (taken < 24) {
        for (int s = 0; s < shards && taken < 24; ++s) {
          for (int id : pull_ids(*srcs[size_t(s)], batch, per_class)) {
            if (taken++ < 24) ++count[id];
          }
        }
      }
      INFO(path << " shards " << shards);
      REQUIRE(count.size() == 24);
      for (auto& [id, c] : count) REQUIRE(c == 1);
    }
  }
}

TEST_CASE("sources: same seed gives the same sample order, another seed another order") {
  test::TempDir d;
  test::make_id_folder(d.path(), 2, 10);
  auto a = make_data_source(spec_for(d.path(), 5, 0, 1, 3));
  auto b = make_data_source(spec_for(d.path(), 5, 0, 1, 3));
  auto c = make_data_source(spec_for(d.path(), 5, 0, 1, 4));
  std::vector<int> ia, ib, ic;
  for (int i = 0; i < 4; ++i) {
    for (int id : pull_ids(*a, 5, 10)) ia.push_back(id);
    for (int id : pull_ids(*b, 5, 10)) ib.push_back(id);
    for (int id : pull_ids(*c, 5, 10)) ic.push_back(id);
  }
  REQUIRE(ia == ib);
  REQUIRE(ia != ic);
}

TEST_CASE("sources: bad folders are one-line usage errors naming the path") {
  test::TempDir d;
  auto err = [](const std::string& path) {
    try {
      make_data_source(spec_for(path, 2));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no UsageError");
  };
  const std::string missing = d / "nope";
  CHECK_THAT(err(missing), Catch::Contains(missing) && Catch::Contains("does not exist"));
  std::filesystem::create_directories(d / "empty");
  CHECK_THAT(err(d / "empty"), Catch::Contains(d / "empty") && Catch::Contains("empty"));
  test::write_file(d / "flat/a.jpg", test::solid_jpeg(1, 8, 8));
  CHECK_THAT(err(d / "flat"), Catch::Contains(d / "flat") && Catch::Contains("no class sub-folders"));
  test::write_file(d / "nojpeg/cls/a.png", {1});
  CHECK_THAT(err(d / "nojpeg"), Catch::Contains("no .jpg/.jpeg files"));
  test::make_id_folder(d / "few", 1, 1);  // one image, global batch of 2
  CHECK_THAT(err(d / "few"), Catch::Contains(d / "few") && Catch::Contains("fewer than one global batch"));
  test::make_id_folder(d / "many", 11, 1);  // 11 classes for a 10-output model
  CHECK_THAT(err(d / "many"), Catch::Contains("11 classes"));
  test::write_file(d / "file.dat", {1});
  CHECK_THAT(err(d / "file.dat"), Catch::Contains("neither a folder nor a .mgrec"));
  for (const std::string& m :
       {err(missing), err(d / "empty"), err(d / "flat"), err(d / "few"), err(d / "many")}) {
    CHECK(m.find('\n') == std::string::npos);
  }
}

TEST_CASE("sources: a corrupt JPEG is an Error naming the file, which skip_bad_images skips and counts") {
  test::TempDir d;
  test::make_id_folder(d.path(), 2, 4);  // ids 0..7
  auto bytes = test::solid_jpeg(3, 32, 32);
  bytes.resize(bytes.size() / 2);
  const std::string bad = d / "class_00/img_003.jpg";
  test::write_file(bad, bytes);
  const std::string garbage = d / "class_01/img_006.jpg";
  test::write_file(garbage, std::vector<uint8_t>(100, 0x55));

  auto src = make_data_source(spec_for(d.path(), 8));
  std::vector<float> img(8 * kSize * kSize * 3);
  std::vector<int32_t> lab(8);
  try {
    src->next(img.data(), lab.data());
    FAIL("no error for a corrupt JPEG");
  } catch (const UsageError&) {
    FAIL("a corrupt image is a run failure (Error), not a usage error");
  } catch (const Error& e) {
    const std::string m = e.what();
    CHECK((m.find(bad) != std::string::npos || m.find(garbage) != std::string::npos));
  }

  DataSpec skip = spec_for(d.path(), 8);
  skip.skip_bad_images = true;
  auto s2 = make_data_source(skip);
  for (int step = 0; step < 3; ++step) {
    const auto ids = pull_ids(*s2, 8, 4);  // full batches, every label still matching its image
    REQUIRE(ids.size() == 8);
    for (int id : ids) REQUIRE((id != 3 && id != 6));
  }
  REQUIRE(s2->skipped_images() == 2);  // each bad file counted once, however often it comes round
}

TEST_CASE("sources: host synthetic batches are fresh every batch with labels in range") {
  DataSpec s = spec_for("synthetic", 4);
  s.num_classes = 5;
  auto src = make_data_source(s);
  REQUIRE(src->samples_per_epoch() == 0);
  std::vector<float> a(4 * kSize * kSize * 3), b(a.size());
  std::vector<int32_t> la(4), lb(4);
  src->next(a.data(), la.data());
  src->next(b.data(), lb.data());
  REQUIRE(a != b);
  for (float v : a) REQUIRE((v >= -2.0f && v < 2.0f));
  for (int32_t l : la) REQUIRE((l >= 0 && l < 5));
  DataSpec other = s;
  other.shard = 1;
  other.num_shards = 2;
  std::vector<float> c(a.size());
  make_data_source(other)->next(c.data(), la.data());
  REQUIRE(c != a);
}
