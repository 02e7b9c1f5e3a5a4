// Token files, a language model's training data, in llm.c's layout: a header of 256 little-endian int32 (magic
// 20240520 for uint16 tokens or 20240801 for uint32, version 1, token count, the rest 0), then the tokens.
// A sample is a window of seq_len + 1 tokens (inputs and, one later, their labels); windows start every seq_len
// tokens and are sharded over replicas like images (data/sharding.h). Any bytes become a token file with the
// byte-level tokenizer: one token per byte, vocabulary 256 (docs/tokens.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "data/data_source.h"

namespace mg {

inline constexpr const char* kTokenFileSuffix = ".bin";
inline constexpr int32_t kTokenMagicU16 = 20240520;
inline constexpr int32_t kTokenMagicU32 = 20240801;
inline constexpr int32_t kTokenFileVersion = 1;
inline constexpr size_t kTokenHeaderInts = 256;

// Reads spec.path. Throws UsageError naming the file when it is not a token file, is truncated, holds a token
// outside the model's vocabulary (spec.num_classes) or has fewer windows than one global batch.
std::unique_ptr<DataSource> make_token_file_source(const DataSpec& spec);

// Writes the bytes of text_path as a uint16 token file at out_path (atomically) with the byte-level
// tokenizer; returns the number of tokens. Throws UsageError for an unreadable or empty input.
int64_t write_byte_token_file(const std::string& text_path, const std::string& out_path);

}  // namespace mg
