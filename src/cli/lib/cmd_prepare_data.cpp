// `mgbench prepare-data DIR OUT.mgrec [--threads N] [--skip-bad-images]`: packs an ImageNet-style folder into
// one .mgrec record file (docs/mgrec.md). Every image is fully decoded first, so a corrupt JPEG is reported
// here, naming the file, rather than hours into a training run.
// Hidden: `prepare-data --generate-test-images DIR --count N --size S --classes K` writes a synthetic folder
// (scripts/bench-input.sh, smoke tests).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>
#include <vector>

#include "cli/lib/command.h"
#include "core/error.h"
#include "core/run_on_threads.h"
#include "core/stop.h"
#include "data/image_folder.h"
#include "data/jpeg_codec.h"
#include "data/record_file.h"
#include "data/test_images.h"

namespace mg {

namespace {

class PrepareDataCommand final : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.description("Pack an ImageNet-style folder (DIR/<class>/<image>.jpg) into a .mgrec record file");
    sub.add_option("input", input_, "Folder with one sub-folder of JPEG images per class");
    sub.add_option("output", output_, "Record file to write (must end in .mgrec); written atomically");
    sub.add_option("--threads", threads_, "Threads reading and validating (decoding) images")
        ->capture_default_str();
    sub.add_flag("--skip-bad-images", skip_bad_, "Leave out images that fail to decode instead of failing");
    sub.add_option("--generate-test-images", gen_dir_, "Write a synthetic JPEG folder to DIR instead")
        ->group("");
    sub.add_option("--count", count_, "Images to generate")->group("");
    sub.add_option("--size", size_, "Generated image width and height")->group("");
    sub.add_option("--classes", classes_, "Class sub-folders to generate")->group("");
  }

  int run() override {
    if (threads_ < 1) throw UsageError("--threads must be at least 1, got " + std::to_string(threads_));
    if (!gen_dir_.empty()) return generate();
    if (input_.empty() || output_.empty()) {
      throw UsageError("prepare-data needs an input folder and an output file: prepare-data DIR OUT.mgrec");
    }
    if (output_.size() < 6 || output_.compare(output_.size() - 6, 6, ".mgrec") != 0) {
      throw UsageError("prepare-data output " + output_ + " must end in .mgrec (that is how --data recognises it)");
    }
    return pack();
  }

 private:
  int generate() {
    if (!input_.empty()) throw UsageError("--generate-test-images takes no positional arguments");
    const auto t0 = std::chrono::steady_clock::now();
    generate_image_folder(gen_dir_, count_, size_, classes_, threads_);
    std::printf("generated %lld %dx%d JPEG images in %d classes under %s (%.1f s)\n",
                static_cast<long long>(count_), size_, size_, classes_, gen_dir_.c_str(), seconds_since(t0));
    return 0;
  }

  int pack() {
    const auto t0 = std::chrono::steady_clock::now();
    const FolderIndex idx = scan_image_folder(input_);
    const auto store = make_folder_store(idx);
    RecordWriter writer(output_);

    // Chunks bound memory to a few hundred encoded images while threads decode them in parallel; records are
    // written in folder order, so the same folder always gives the same file.
    const int64_t n = store->size();
    const int64_t chunk = 64 * static_cast<int64_t>(threads_);
    std::vector<std::vector<uint8_t>> bytes(static_cast<size_t>(chunk));
    std::vector<std::exception_ptr> failed(static_cast<size_t>(chunk));
    int64_t skipped = 0, written_bytes = 0;
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
      run_on_threads(threads_, [&](int) { work(); });
      throw_if_stopped();  // the writer's destructor removes its temporary file

      for (int64_t j = 0; j < m; ++j) {
        if (failed[static_cast<size_t>(j)]) {
          if (!skip_bad_) rethrow_as_usage(failed[static_cast<size_t>(j)]);
          ++skipped;
          continue;
        }
        const auto& b = bytes[static_cast<size_t>(j)];
        writer.add(b.data(), b.size(), store->label(base + j));
        written_bytes += static_cast<int64_t>(b.size());
      }
    }
    if (writer.count() == 0) throw UsageError("no decodable images in " + input_ + "; nothing written");
    writer.finish(idx.classes);
    std::printf("wrote %lld images in %zu classes (%.1f MB) to %s in %.1f s", static_cast<long long>(writer.count()),
                idx.classes.size(), static_cast<double>(written_bytes) / 1e6, output_.c_str(), seconds_since(t0));
    if (skipped) std::printf("; skipped %lld bad images", static_cast<long long>(skipped));
    std::printf("\n");
    return 0;
  }

  // A corrupt input image is bad input to this command: exit 2, with the hint to skip it.
  [[noreturn]] static void rethrow_as_usage(const std::exception_ptr& e) {
    try {
      std::rethrow_exception(e);
    } catch (const UsageError&) {
      throw;
    } catch (const Error& err) {
      throw UsageError(std::string(err.what()) + " (--skip-bad-images leaves it out)");
    }
  }

  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  std::string input_, output_, gen_dir_;
  int threads_ = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  bool skip_bad_ = false;
  int64_t count_ = 1000;
  int size_ = 224;
  int classes_ = 10;
};

}  // namespace

std::unique_ptr<Command> make_prepare_data_command() { return std::make_unique<PrepareDataCommand>(); }

}  // namespace mg
