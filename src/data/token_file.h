// Token files, a language model's training data, in llm.c's layout: a header of 256 little-endian int32 (magic
// and version 20240520 / 1 for uint16 tokens or 20240801 / 7 for uint32, token count, the rest 0), the tokens.
// A sample is a window of seq_len + 1 tokens (inputs and, one later, their labels); windows start every seq_len
// tokens and are sharded over replicas like images (data/sharding.h); docs/tokens.md. data/byte_tokens.h writes them.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "data/data_source.h"

namespace mg {

inline constexpr const char* kTokenFileSuffix = ".bin";
inline constexpr int32_t kTokenMagicU16 = 20240520, kTokenVersionU16 = 1;  // llm.c's GPT-2 files
inline constexpr int32_t kTokenMagicU32 = 20240801, kTokenVersionU32 = 7;  // llm.c's LLaMA-3 files
inline constexpr size_t kTokenHeaderInts = 256;

// Reads spec.path. Throws UsageError naming the file when it is not a token file, is truncated, holds a token
// outside the model's vocabulary (spec.num_classes) or has fewer windows than one global batch.
std::unique_ptr<DataSource> make_token_file_source(const DataSpec& spec);

// Full scans of token files this process has made: one per file for all the sources open on it at a time.
int64_t token_file_scans();

}  // namespace mg
