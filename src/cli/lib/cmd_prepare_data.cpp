// `mgbench prepare-data DIR OUT.mgrec [--threads N] [--skip-bad-images]`: packs an ImageNet-style folder into
// one .mgrec record file; the packing itself is data/record_pack.h, this file parses options and prints.
// Hidden: `prepare-data --generate-test-images DIR --count N --size S --classes K` writes a synthetic folder
// (scripts/bench-input.sh, smoke tests).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/lib/command.h"
#include "core/error.h"
#include "data/record_pack.h"
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
    const RecordPackSummary sum = pack_image_folder(input_, output_, RecordPackOptions{threads_, skip_bad_});
    std::printf("wrote %lld images in %zu classes (%.1f MB) to %s in %.1f s", static_cast<long long>(sum.images),
                sum.classes, static_cast<double>(sum.bytes) / 1e6, output_.c_str(), seconds_since(t0));
    if (sum.skipped) std::printf("; skipped %lld bad images", static_cast<long long>(sum.skipped));
    std::printf("\n");
    return 0;
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
