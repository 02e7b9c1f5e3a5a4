#include "data/byte_tokens.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/token_file.h"

namespace mg {

int64_t write_byte_token_file(const std::string& text_path, const std::string& out_path) {
  std::ifstream in(text_path, std::ios::binary | std::ios::ate);
  if (!in) throw UsageError("cannot open " + text_path + ": " + std::strerror(errno));
  const std::streamoff size = in.tellg();
  if (size < 0) throw UsageError("cannot read " + text_path + ": not a file with a size");
  if (size < 2) throw UsageError(text_path + " has fewer than 2 bytes: no token has a next one to learn");
  if (size > INT32_MAX) throw UsageError(text_path + " has more bytes than a token file's int32 count can hold");
  std::vector<char> text(static_cast<size_t>(size));
  in.seekg(0);
  // A read that stops short (an I/O error, a file shrinking under us) must not become a shorter token file.
  if (!in.read(text.data(), size) || in.gcount() != size)
    throw UsageError("cannot read " + text_path + ": " + std::strerror(errno));
  std::vector<int32_t> header(kTokenHeaderInts, 0);
  header[0] = kTokenMagicU16;
  header[1] = kTokenVersionU16;
  header[2] = static_cast<int32_t>(size);
  std::string out(reinterpret_cast<const char*>(header.data()), header.size() * sizeof(int32_t));
  out.reserve(out.size() + text.size() * sizeof(uint16_t));
  for (const char c : text) {
    const uint16_t id = static_cast<unsigned char>(c);
    out.append(reinterpret_cast<const char*>(&id), sizeof id);
  }
  write_file_atomic(out_path, out);
  return static_cast<int64_t>(size);
}

}  // namespace mg
