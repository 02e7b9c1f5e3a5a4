// Packing a class folder into one record file (data/record_pack.h): every image in folder order with its
// label, a corrupt image refused with the hint to skip it, or left out and counted with skip_bad.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/error.h"
#include "data/record_file.h"
#include "data/record_pack.h"
#include "data_test_util.h"

using namespace mg;

TEST_CASE("record pack: a folder becomes one record file in folder order, the same for any thread count") {
  test::TempDir d;
  test::make_id_folder(d / "in", 3, 4);
  const RecordPackSummary one = pack_image_folder(d / "in", d / "one.mgrec", RecordPackOptions{1, false});
  const RecordPackSummary three = pack_image_folder(d / "in", d / "three.mgrec", RecordPackOptions{3, false});
  CHECK(one.images == 12);
  CHECK(one.classes == 3);
  CHECK(one.skipped == 0);
  CHECK(one.bytes > 0);
  CHECK(three.bytes == one.bytes);
  auto a = open_record_file(d / "one.mgrec");
  auto b = open_record_file(d / "three.mgrec");
  REQUIRE(a->size() == 12);
  std::vector<uint8_t> x, y;
  for (int64_t i = 0; i < a->size(); ++i) {
    CHECK(a->label(i) == i / 4);
    a->read(i, x);
    b->read(i, y);
    CHECK(x == y);
  }
}

TEST_CASE("record pack: a corrupt image fails naming it and leaves no file, unless it is skipped") {
  test::TempDir d;
  test::make_id_folder(d / "in", 2, 3);
  test::write_file(d / "in/class_01/broken.jpg", {0xff, 0xd8, 0xff, 0x00, 0x01});
  CHECK_THROWS_AS(pack_image_folder(d / "in", d / "out.mgrec", RecordPackOptions{2, false}), UsageError);
  CHECK_THROWS_WITH(pack_image_folder(d / "in", d / "out.mgrec", RecordPackOptions{2, false}),
                    Catch::Contains("broken.jpg") && Catch::Contains("--skip-bad-images"));
  CHECK_FALSE(std::filesystem::exists(d / "out.mgrec"));
  const RecordPackSummary s = pack_image_folder(d / "in", d / "out.mgrec", RecordPackOptions{2, true});
  CHECK(s.images == 6);
  CHECK(s.skipped == 1);
  CHECK(open_record_file(d / "out.mgrec")->size() == 6);
  CHECK_THROWS_AS(pack_image_folder(d / "in", d / "bad.mgrec", RecordPackOptions{0, false}), UsageError);
}
