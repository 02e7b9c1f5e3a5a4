#include "data/record_pack.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <vector>

#include "core/error.h"
#include "core/run_on_threads.h"
#include "core/stop.h"
#include "data/image_folder.h"
#include "data/jpeg_codec.h"
#include "data/record_file.h"

namespace mg {
namespace {

// A corrupt input image is bad input to prepare-data: exit 2, with the hint to skip it.
[[noreturn]] void rethrow_as_usage(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const UsageError&) {
    throw;
  } catch (const Error& err) {
    throw UsageError(std::string(err.what()) + " (--skip-bad-images leaves it out)");
  }
}

}  // namespace

RecordPackSummary pack_image_folder(const std::string& input, const std::string& output,
                                    const RecordPackOptions& opt) {
  if (opt.threads < 1) throw UsageError("--threads must be at least 1, got " + std::to_string(opt.threads));
  const FolderIndex idx = scan_image_folder(input);
  const auto store = make_folder_store(idx);
  RecordWriter writer(output);

  // Chunks bound memory to a few hundred encoded images while threads decode them in parallel; records are
  // written in folder order, so the same folder always gives the same file.
  RecordPackSummary sum;
  const int64_t n = store->size();
  const int64_t chunk = 64 * static_cast<int64_t>(opt.threads);
  std::vector<std::vector<uint8_t>> bytes(static_cast<size_t>(chunk));
  std::vector<std::exception_ptr> failed(static_cast<size_t>(chunk));
  for (int64_t base = 0; base < n; base += chunk) {
    const int64_t m = std::min(chunk, n - base);
    std::atomic<int64_t> next{0};
    auto work = [&] {
      JpegDecoder dec;
      RgbImage img;
      for (int64_t j; !stop_requested() && (j = next.fetch_add(1)) < m;) {
        failed[static_cast<size_t>(j)] = nullptr;
        try {
          store->read(base + j, bytes[static_cast<size_t>(j)]);
          dec.decode(bytes[static_cast<size_t>(j)].data(), bytes[static_cast<size_t>(j)].size(),
                     store->name(base + j), img);
        } catch (...) {
          failed[static_cast<size_t>(j)] = std::current_exception();
        }
      }
    };
    run_on_threads(opt.threads, [&](int) { work(); });
    throw_if_stopped();  // the writer's destructor removes its temporary file

    for (int64_t j = 0; j < m; ++j) {
      if (failed[static_cast<size_t>(j)]) {
        if (!opt.skip_bad) rethrow_as_usage(failed[static_cast<size_t>(j)]);
        ++sum.skipped;
        continue;
      }
      const auto& b = bytes[static_cast<size_t>(j)];
      writer.add(b.data(), b.size(), store->label(base + j));
      sum.bytes += static_cast<int64_t>(b.size());
    }
  }
  if (writer.count() == 0) throw UsageError("no decodable images in " + input + "; nothing written");
  writer.finish(idx.classes);
  sum.images = writer.count();
  sum.classes = idx.classes.size();
  return sum;
}

}  // namespace mg
