// Link presets, "bw=..,lat=.." parsing with units, bad links, and the fit/interpolation of a mgbench comm curve.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "core/error.h"
#include "predict/interconnect.h"
#include "predict/link_model.h"

namespace mg {

TEST_CASE("presets carry their per-GPU bandwidth, NCCL's per-step latency and a source") {
  const LinkModel nv = parse_link("nvlink4", "--link");
  CHECK(nv.bandwidth_Bps == Approx(450e9));
  CHECK(nv.latency_s == Approx(3.4e-6));
  CHECK(parse_link("PCIe4", "--link").bandwidth_Bps == Approx(31.5e9));
  CHECK(parse_link("ib-ndr", "--link").bandwidth_Bps == Approx(50e9));
  CHECK(parse_link("25gbe", "--link").bandwidth_Bps == Approx(3.125e9));
  for (const LinkPreset& p : link_presets()) {
    CHECK(p.bandwidth_GBps > 0);
    CHECK(std::string(p.source).size() > 5);
  }
}

// The model's busbw (2(n-1)/n x bytes / all-reduce time, as nccl-tests reports it) at a published figure's setup.
static double model_busbw_GBps(const LinkPreset& p) {
  const PublishedBusbw& pub = p.published;
  Interconnect ic;
  if (pub.gpus_per_node > 0) {
    ic.intra = parse_link(pub.intra, "--link");
    ic.inter = parse_link(p.name, "--inter-node");
    ic.gpus_per_node = pub.gpus_per_node;
    ic.nics_per_node = pub.nics_per_node;
  } else {
    ic.intra = parse_link(p.name, "--link");
  }
  const double t = allreduce_time(ic, AllreduceMode::Ring, pub.bytes, pub.ranks);
  return 2.0 * (pub.ranks - 1) / pub.ranks * pub.bytes / t / 1e9;
}

TEST_CASE("each preset's model busbw beside its published nccl-tests figure: -nccl presets reproduce it, datasheet "
          "presets stand at their stated ratio") {
  // Datasheet rate over achieved busbw, as docs/predict.md's preset table states them.
  const std::map<std::string, double> datasheet_ratio = {{"nvlink3", 1.489}, {"nvlink4", 1.203}, {"pcie4", 1.213},
                                                         {"pcie5", 2.244},   {"ib-hdr", 1.093},  {"ib-ndr", 1.564}};
  std::set<std::string> with_figure;
  for (const LinkPreset& p : link_presets()) {
    INFO(p.name);
    CHECK(std::string(p.published.source).size() > 10);
    if (p.published.busbw_GBps <= 0) {
      CHECK(std::string(p.published.source).rfind("none found", 0) == 0);
      continue;
    }
    const double ratio = model_busbw_GBps(p) / p.published.busbw_GBps;
    INFO("model busbw / published = " << ratio);
    const std::string name = p.name;
    if (name.size() > 5 && name.compare(name.size() - 5, 5, "-nccl") == 0) {
      CHECK(std::abs(ratio - 1) < 0.02);
    } else {
      with_figure.insert(name);
      REQUIRE(datasheet_ratio.count(name) == 1);
      CHECK(ratio == Approx(datasheet_ratio.at(name)).epsilon(0.005));
    }
  }
  CHECK(with_figure.size() == datasheet_ratio.size());
}

TEST_CASE("bw=..,lat=.. with units") {
  LinkModel m = parse_link("bw=100Mbit,lat=2ms", "--link");
  CHECK(m.bandwidth_Bps == Approx(12.5e6));
  CHECK(m.latency_s == Approx(2e-3));
  m = parse_link("bw=25GB/s,lat=5us", "--link");
  CHECK(m.bandwidth_Bps == Approx(25e9));
  CHECK(m.latency_s == Approx(5e-6));
  m = parse_link("bw=12.5", "--link");  // bare numbers: GB/s, and latency 0
  CHECK(m.bandwidth_Bps == Approx(12.5e9));
  CHECK(m.latency_s == 0);
  CHECK(parse_link("lat=300ns,bw=1Gbit", "--link").latency_s == Approx(3e-7));
}

TEST_CASE("bad links are usage errors") {
  CHECK_THROWS_AS(parse_link("nvlink9", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=0", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=-5GB/s", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=10parsecs", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("lat=5us", "--link"), UsageError);  // no bandwidth
  CHECK_THROWS_AS(parse_link("bw=1,lat=-1us", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,speed=2", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("bw=1,bw=2", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("", "--link"), UsageError);
  CHECK_THROWS_AS(parse_link("/no/such/comm.json", "--link"), UsageError);
  try {
    parse_link("nvlink9", "--link");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("unknown link 'nvlink9'") != std::string::npos);
  }
}

TEST_CASE("a link list keeps bw=..,lat=.. groups together") {
  CHECK(split_link_list("nvlink4,pcie4") == std::vector<std::string>{"nvlink4", "pcie4"});
  CHECK(split_link_list("nvlink4,bw=10GB/s,lat=5us,pcie4") ==
        std::vector<std::string>{"nvlink4", "bw=10GB/s,lat=5us", "pcie4"});
  CHECK(split_link_list("bw=1,lat=2,bw=3") == std::vector<std::string>{"bw=1,lat=2", "bw=3"});
}

namespace {

// A comm result as `mgbench comm` measures it, times from an exact ring model at `ranks`.
CommResult comm_result(int ranks, double lat, double bw, const std::vector<size_t>& sizes) {
  CommResult c;
  for (size_t s : sizes) {
    const double t = 2.0 * (ranks - 1) * lat + 2.0 * (ranks - 1) / ranks * static_cast<double>(s) / bw;
    for (bool in_place : {false, true}) {
      CommRow r;
      r.op = "allreduce";
      r.dtype = "fp32";
      r.bytes = s;
      r.count = s / 4;
      r.in_place = in_place;
      r.time_us = t * 1e6;
      r.transport = "auto";
      r.devices = ranks;
      c.rows.push_back(r);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("a mgbench comm curve: latency and bandwidth fitted, the curve interpolated and rescaled") {
  const std::vector<size_t> sizes = {65536, 262144, 1048576, 4194304, 16777216};
  const LinkModel m = link_from_comm(comm_result(2, 50e-6, 1e9, sizes), "c.json");
  CHECK(m.latency_s == Approx(50e-6).epsilon(1e-6));
  CHECK(m.bandwidth_Bps == Approx(1e9).epsilon(1e-6));
  CHECK(m.fit_rms_rel < 1e-9);
  CHECK(m.curve.size() == sizes.size());
  // At the measured rank count the curve is the answer, between and beyond the measured sizes too.
  for (double s : {65536.0, 500000.0, 16777216.0, 1e8})
    CHECK(ring_allreduce_time(m, s, 2) == Approx(2 * 50e-6 + s / 1e9).epsilon(1e-3));
  // At 8 ranks: 14 latency terms and 2*7/8 of the bytes.
  CHECK(ring_allreduce_time(m, 4e6, 8) == Approx(14 * 50e-6 + 2.0 * 7 / 8 * 4e6 / 1e9).epsilon(1e-3));
  CHECK(ring_allreduce_time(m, 4e6, 1) == 0);
}

TEST_CASE("a comm result measured with --gap: all-reduces after a gap read the gap curve") {
  const std::vector<size_t> sizes = {4096, 65536, 1048576, 16777216};
  CommResult j = comm_result(2, 50e-6, 1e9, sizes);
  // Back to back: the plain ring; after the gap 2 ms more at every size.
  j.gap_s = 0.01;
  for (CommRow& r : j.rows) r.gap_time_us = r.time_us + 2000;
  const LinkModel m = link_from_comm(j, "gap.json");
  CHECK(m.gap_s == Approx(0.01));
  CHECK(m.gap_curve.size() == sizes.size());
  CHECK(m.description.find("after a gap of 0.01 s") != std::string::npos);
  // The fit is the back-to-back curve's alone.
  CHECK(m.latency_s == Approx(50e-6).epsilon(1e-6));
  for (double s : {4096.0, 6344.0, 500000.0, 16777216.0, 3e7}) {
    CHECK(ring_allreduce_time(m, s, 2) == Approx(2 * 50e-6 + s / 1e9).epsilon(1e-3));
    CHECK(ring_allreduce_time(m, s, 2, true) == Approx(2 * 50e-6 + s / 1e9 + 0.002).epsilon(1e-3));
    CHECK(gap_extra_time(m, s, 2) == Approx(0.002).epsilon(1e-3));
  }
  // At 8 ranks the measured extra is carried over with the curve.
  CHECK(ring_allreduce_time(m, 4e6, 8, true) - ring_allreduce_time(m, 4e6, 8) == Approx(0.002).epsilon(1e-3));
  // A gap curve below the back-to-back fit's intercept (small messages on an idle stream often are) is still
  // the answer at the measured rank count, not raised to the intercept.
  CommResult fast = comm_result(2, 50e-6, 1e9, sizes);
  fast.gap_s = 0.01;
  for (CommRow& r : fast.rows) r.gap_time_us = r.time_us / 4;
  const LinkModel f = link_from_comm(fast, "fast.json");
  CHECK(ring_allreduce_time(f, 4096, 2, true) == Approx((2 * 50e-6 + 4096 / 1e9) / 4).epsilon(1e-6));
  CHECK(ring_allreduce_time(f, 4e6, 8, true) >= ring_allreduce_time(f, 4e6, 2, true));
  // Measured with 8 ranks, asked for 2: a point below the intercept is scaled by the latency terms (2 of 14),
  // not wiped out by subtracting 14 and adding 2.
  CommResult wide = comm_result(8, 50e-6, 1e9, sizes);
  wide.gap_s = 0.01;
  for (CommRow& r : wide.rows) r.gap_time_us = r.time_us / 4;
  const LinkModel w = link_from_comm(wide, "wide.json");
  const double at8 = ring_allreduce_time(w, 4096, 8, true);
  CHECK(at8 == Approx((14 * 50e-6 + 2.0 * 7 / 8 * 4096 / 1e9) / 4).epsilon(1e-6));
  const double at2 = ring_allreduce_time(w, 4096, 2, true);
  CHECK(at2 > 0);
  CHECK(at2 < at8);
  // Without --gap there is no gap curve: after a gap costs what back to back does.
  const LinkModel plain = link_from_comm(comm_result(2, 50e-6, 1e9, sizes), "plain.json");
  CHECK(plain.gap_curve.empty());
  CHECK(ring_allreduce_time(plain, 6344, 2, true) == ring_allreduce_time(plain, 6344, 2));
  CHECK(gap_extra_time(plain, 6344, 2) == 0);
  // A result that says --gap but lacks the figure for a size is refused, not half used.
  j.rows[2].gap_time_us = 0;
  j.rows[3].gap_time_us = 0;
  CHECK_THROWS_AS(link_from_comm(j, "partial.json"), UsageError);
  // So is one whose gapped sizes are as many as the timed ones but not the same sizes.
  CommRow odd = j.rows[0];
  odd.bytes = 8192;
  odd.time_us = 0;
  odd.gap_time_us = 3000;
  j.rows.push_back(odd);
  CHECK_THROWS_AS(link_from_comm(j, "shifted.json"), UsageError);
}

TEST_CASE("a comm result that cannot describe a link is refused") {
  CHECK_THROWS_AS(link_from_comm(CommResult{}, "x.json"), UsageError);
  CHECK_THROWS_AS(link_from_comm(comm_result(2, 1e-5, 1e9, {65536}), "one-size.json"), UsageError);
  CHECK_THROWS_AS(link_from_comm(comm_result(1, 1e-5, 1e9, {65536, 262144}), "one-rank.json"), UsageError);
  CommResult flat = comm_result(2, 1e-5, 1e9, {65536, 262144});
  for (CommRow& r : flat.rows) r.time_us = 100.0;  // no growth with size: no bandwidth
  CHECK_THROWS_AS(link_from_comm(flat, "flat.json"), UsageError);
}

}  // namespace mg
