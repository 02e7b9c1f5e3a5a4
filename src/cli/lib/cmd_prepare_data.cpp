// `mgbench prepare-data DIR OUT.mgrec [--threads N] [--skip-bad-images]`: packs an ImageNet-style folder into
// one .mgrec record file; `mgbench prepare-data TEXT OUT.bin` makes a language model's token file from any file
// with the byte-level tokenizer. The work is data/record_pack.h and data/byte_tokens.h; this file parses and prints.
// Hidden: `prepare-data --generate-test-images DIR --count N --size S --classes K` writes a synthetic folder
// (scripts/measure/bench-input.sh, smoke tests).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "cli/lib/command.h"
#include "core/ends_with.h"
#include "core/error.h"
#include "data/record_pack.h"
#include "data/byte_tokens.h"
#include "data/test_images.h"
#include "data/token_file.h"

namespace mg {

namespace {

class PrepareDataCommand final : public Command {
 public:
  void setup(CLI::App& sub) override {
    sub.description("Pack an ImageNet-style folder (DIR/<class>/<image>.jpg) into a .mgrec record file, or make a "
                    "language model's token file (.bin, one token per byte) from a text file");
    sub.add_option("input", input_, "Folder with one sub-folder of JPEG images per class, or a text file");
    sub.add_option("output", output_, "Record file (.mgrec) or token file (.bin) to write; written atomically");
    threads_opt_ = sub.add_option("--threads", threads_, "Threads reading and validating (decoding) images")
                       ->capture_default_str();
    sub.add_flag("--skip-bad-images", skip_bad_, "Leave out images that fail to decode instead of failing");
    sub.add_option("--generate-test-images", gen_dir_, "Write a synthetic JPEG folder to DIR instead")
        ->group("");
    sub.add_option("--count", count_, "Images to generate")->group("");
    sub.add_option("--size", size_, "Generated image width and height")->group("");
    sub.add_option("--classes", classes_, "Class sub-folders to generate")->group("");
  }

  int run() override {
    if (threads_ < 1) throw UsageError(fmt::format("--threads must be at least 1, got {}", threads_));
    if (!gen_dir_.empty()) return generate();
    if (input_.empty() || output_.empty()) {
      throw UsageError("prepare-data needs an input and an output file: prepare-data DIR OUT.mgrec or "
                       "prepare-data TEXT OUT.bin");
    }
    if (ends_with(output_, kTokenFileSuffix)) {
      if (skip_bad_) throw UsageError("--skip-bad-images applies to images, not to a token file");
      // Byte tokens are one sequential pass at disk speed: a thread count would be a knob that does nothing.
      if (threads_opt_->count()) throw UsageError("--threads applies to images, not to a token file");
      return tokenize();
    }
    if (!ends_with(output_, ".mgrec")) {
      throw UsageError(fmt::format(
          "prepare-data output {} must end in .mgrec (images) or {} (tokens): that is how --data recognises it",
          output_, kTokenFileSuffix));
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

  int tokenize() {
    std::error_code ec;  // an unreadable path is write_byte_token_file's to report
    if (std::filesystem::is_directory(input_, ec))
      throw UsageError(
          fmt::format("prepare-data {} is a folder: a token file ({}) is made from one text file", input_, output_));
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t n = write_byte_token_file(input_, output_);
    std::printf("wrote %lld byte-level tokens (vocabulary 256) to %s in %.1f s\n", static_cast<long long>(n),
                output_.c_str(), seconds_since(t0));
    return 0;
  }

  static double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  CLI::Option* threads_opt_ = nullptr;
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
