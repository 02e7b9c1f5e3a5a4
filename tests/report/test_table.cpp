#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "report/progress.h"
#include "report/table.h"
#include "support/result_fixture.h"

using namespace mg;

namespace {

std::string read_all(std::FILE* f) {
  std::rewind(f);
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(s.substr(start, nl - start));
  return out;
}

bool t_has_no_mfu(const std::vector<std::string>& ls) {
  for (const std::string& l : ls)
    if (l.find("model FLOPs utilisation") != std::string::npos) return false;
  return true;
}

}  // namespace

TEST_CASE("table: a header line, column titles and one row per device count") {
  RunResult r = test::make_result({1, 2}, {0.100, 0.125}, 9, 0.0, 4);  // no noise: exact numbers
  r.runs.push_back(test::make_run(2, "shm", test::make_samples(9, 0.2, 0.0, 1)));
  summarize(r.runs.back());
  compute_scaling(r.runs);
  const std::string t = format_table(r);
  const auto ls = lines(t);
  REQUIRE(ls.size() == 6);
  CHECK(ls[0].find("resnet50 fp32 on cpu, batch 32 per device") == 0);
  CHECK(ls[0].find("host bench-host") != std::string::npos);
  CHECK(ls[0].find("2x") == std::string::npos);  // two different device names
  CHECK(ls[1].find("images/s") != std::string::npos);
  CHECK(ls[1].find("busbw") != std::string::npos);
  // 1 device: 32 images / 0.1 s; efficiency 100%; step 100 ms with zero CI width.
  CHECK(ls[2].find("      1 default         320.0      320.0  100.0") == 0);
  CHECK(ls[2].find("100.00 ± 0.00") != std::string::npos);
  // 2 devices: 64 / 0.125 = 512 img/s, 256 per device, efficiency 80%; shares 2/30/53/5/8/10 % (the 8 % overlapped lies inside the 53 % of backward).
  CHECK(ls[3].find("      2 default         512.0      256.0   80.0") == 0);
  CHECK(ls[3].find("   2.0   30.0   53.0    5.0    8.0   10.0") != std::string::npos);
  CHECK(ls[3].find("13.63") != std::string::npos);  // busbw: 102228128 B / 7.5 ms = 13.63 GB/s, x 2(2-1)/2
  // A transport without its own 1-device run has no efficiency.
  CHECK(ls[4].find("      2 shm ") == 0);
  CHECK(ls[4].find("      -") != std::string::npos);
  // Every entry ran the same convolution algorithms: one line says which.
  CHECK(ls[5] == "convolution layers: 42 direct, 11 winograd (the faster per shape, timed at set-up)");
}

TEST_CASE("table: a language model's rates are tokens/s and its batch is of sequences") {
  RunResult r = test::make_language_model_result({1, 2}, {0.100, 0.125}, 9, 0.0, 4);
  CHECK(r.runs[1].tokens_per_sec == Approx(512.0 * 256));
  const auto ls = lines(format_table(r));
  CHECK(ls[0].find("gpt2 fp32 on cpu, batch 32 x 256 tokens per device") == 0);
  CHECK(ls[1].find("tokens/s  tok/s/dev") != std::string::npos);
  CHECK(ls[1].find("images/s") == std::string::npos);
  // 32 sequences / 0.1 s x 256 tokens; 2 devices: 512 sequences/s, 256 per device, x 256 tokens.
  CHECK(ls[2].find("      1 default       81920.0    81920.0  100.0") == 0);
  CHECK(ls[3].find("      2 default      131072.0    65536.0   80.0") == 0);
  CHECK(t_has_no_mfu(ls));
  for (DeviceCountResult& d : r.runs) {
    d.model_flops_per_sample = 1e9;
    d.peak_flops_per_device = 1e12;
    d.peak_flops_source = "measured fp32 FMA peak (avx2, 4 threads): 1000 GFLOP/s";
    summarize(d);
  }
  const auto with = lines(format_table(r));
  // 320 and 256 sequences/s per device x 1 GFLOP over 1 TFLOP/s.
  CHECK(with[4] == "model FLOPs utilisation: 32.0 % (1 device), 25.6 % (2 devices) of the measured fp32 FMA peak "
                   "(avx2, 4 threads): 1000 GFLOP/s");
  r.runs[1].peak_flops_source = "another peak";
  const auto apart = lines(format_table(r));
  CHECK(apart[4] == "model FLOPs utilisation, 1 device: 32.0 % of the measured fp32 FMA peak (avx2, 4 threads): 1000 GFLOP/s");
  CHECK(apart[5] == "model FLOPs utilisation, 2 devices: 25.6 % of the another peak");
  // Winograd layers in an entry with an MFU: the figure counts them at direct-convolution FLOPs, and says so.
  for (DeviceCountResult& d : r.runs) d.conv_algorithms = {{"direct", 53}};
  for (const std::string& l : lines(format_table(r))) CHECK(l.find("Winograd layers are counted") == std::string::npos);
  r.runs[1].conv_algorithms = {{"direct", 43}, {"winograd", 10}};
  const auto wino = lines(format_table(r));
  CHECK(wino[6] == "  (Winograd layers are counted at direct-convolution FLOPs: the arithmetic executed is less; "
                   "docs/results.md)");
  r.runs[1].conv_algorithms = {{"fwd:winograd_nonfused/tensor_op", 10}};  // cuDNN's name for it
  CHECK(lines(format_table(r))[6].find("(Winograd layers are counted") == 2);
  r.runs[1].mfu = 0;  // no MFU beside the Winograd layers: nothing to qualify
  for (const std::string& l : lines(format_table(r))) CHECK(l.find("Winograd layers are counted") == std::string::npos);
}

TEST_CASE("table: which convolution algorithms ran, per entry where the entries chose differently") {
  RunResult r = test::make_result({1, 2}, {0.100, 0.125}, 9, 0.0, 4);
  r.config.cpu_conv_algo = CpuConvAlgo::Direct;
  for (DeviceCountResult& d : r.runs) d.conv_algorithms = {{"direct", 53}};
  auto ls = lines(format_table(r));
  REQUIRE(ls.size() == 5);
  CHECK(ls[4] == "convolution layers: 53 direct (--cpu-conv-algo direct)");
  r.config.cpu_conv_algo = CpuConvAlgo::Fastest;
  r.runs[1].conv_algorithms = {{"direct", 43}, {"winograd", 10}};
  ls = lines(format_table(r));
  REQUIRE(ls.size() == 6);
  CHECK(ls[4] == "convolution layers, 1 device(s) default: 53 direct (the faster per shape, timed at set-up)");
  CHECK(ls[5] == "convolution layers, 2 device(s) default: 43 direct, 10 winograd (the faster per shape, timed at set-up)");
  for (DeviceCountResult& d : r.runs) d.conv_algorithms.clear();  // a GPU run, or an older file: no line
  CHECK(lines(format_table(r)).size() == 4);
}

TEST_CASE("progress is silent when not on a terminal") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p("resnet50 x2", f);  // a regular file is not a TTY
    CHECK_FALSE(p.enabled());
    p.update(3, 20, 123.4);
    p.finish();
  }
  CHECK(read_all(f).empty());
  std::fclose(f);
}

TEST_CASE("progress rewrites one line and clears it at the end") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p("resnet50 x2", f, true);
    p.update(12, 20, 345.6);
    p.update(13, 20, 9.5);  // shorter: padded over the previous text
  }
  const std::string s = read_all(f);
  const std::string first = "\rresnet50 x2: step 12/20  345.6 img/s";
  const std::string second_text = "resnet50 x2: step 13/20  9.5 img/s";
  const std::string second = "\r" + second_text + "  ";
  // finish() blanks what is still visible: the second line's text (the padding is already blank).
  CHECK(s == first + second + "\r" + std::string(second_text.size(), ' ') + "\r");
  CHECK(s.find('\n') == std::string::npos);
  std::fclose(f);
}
