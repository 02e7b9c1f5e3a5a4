// The byte-level tokenizer: one token per byte of any file, read back by the token-file reader with each label the
// next byte; inputs too short to learn from or unreadable are refused.
#include <catch2/catch.hpp>

#include <fstream>
#include <vector>

#include "data/byte_tokens.h"
#include "data/data_source.h"
#include "support/temp_dir.h"

using namespace mg;

TEST_CASE("byte tokens: the byte-level tokenizer writes one token per byte of any file") {
  test::TempDir dir;
  std::string text = "hello, tokens";
  text += '\0';
  text += '\xff';
  {
    std::ofstream f(dir / "in.txt", std::ios::binary);
    f << text;
  }
  REQUIRE(write_byte_token_file(dir / "in.txt", dir / "out.bin") == static_cast<int64_t>(text.size()));
  DataSpec spec;
  spec.path = dir / "out.bin";
  spec.batch_size = 1;
  spec.seq_len = static_cast<int64_t>(text.size()) - 1;
  spec.num_classes = 256;
  auto src = make_data_source(spec);
  std::vector<int32_t> ids(text.size() - 1), labels(text.size() - 1);
  src->next(ids.data(), labels.data());
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    CHECK(ids[i] == static_cast<unsigned char>(text[i]));
    CHECK(labels[i] == static_cast<unsigned char>(text[i + 1]));
  }
  {
    std::ofstream f(dir / "one.txt", std::ios::binary);
    f << "x";
  }
  REQUIRE_THROWS_WITH(write_byte_token_file(dir / "one.txt", dir / "o.bin"), Catch::Contains("fewer than 2 bytes"));
  REQUIRE_THROWS_WITH(write_byte_token_file(dir / "none.txt", dir / "o.bin"), Catch::Contains("cannot open"));
}
