// The byte-level tokenizer: any file becomes a language model's token file (data/token_file.h), one uint16 token
// per byte, vocabulary 256 (what gpt2-tiny reads; `mgbench prepare-data TEXT OUT.bin`).
#pragma once
#include <cstdint>
#include <string>

namespace mg {

// Writes the bytes of text_path as a token file at out_path (atomically); returns the number of tokens. Throws
// UsageError for an unreadable input or one of fewer than 2 bytes (no token would have a next one).
int64_t write_byte_token_file(const std::string& text_path, const std::string& out_path);

}  // namespace mg
