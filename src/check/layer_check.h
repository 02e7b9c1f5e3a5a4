// Layer correctness on a device: every layer kind on small shapes, forward, input gradient, parameter
// gradients (overwritten and accumulated) and the inference forward, against a reference -- the CPU backend
// at fp32 for the CUDA backend, the naive double-precision reference (reference_layers.h) for the CPU
// backend -- within the precision's tolerance. Shared by `mgbench check`, the pre-run check of a benchmark and
// tests/gpu, so a user's check is the test suite's check.
#pragma once
#include <string>
#include <vector>

#include "backend/backend.h"
#include "models/layer_desc.h"
#include "result/check_report.h"

namespace mg::check {

struct LayerCase {
  std::string name;
  LayerDesc desc;
  std::vector<Shape> shapes;
  // Inputs are distinct integers (at most 512 elements: exact in bf16), so max pooling has no ties and both
  // sides pick the same element.
  bool distinct = false;
  // Built with LayerOptions::relu (a BatchNorm or Add with the ReLU the network folds into it), checked against
  // the reference layer followed by a ReLU. Only on backends whose fuses_relu offers it.
  bool relu = false;
  // The model layers (indices into ModelDesc::layers) this case stands for; empty for the per-kind cases.
  std::vector<int> layers;
};

// The per-kind cases: every layer kind a shipped model uses, on small generic shapes (`mgbench check`).
std::vector<LayerCase> all_layer_cases();
// Those of the kinds `m` uses: advisory in a model's check, whose binding cases are model_cases.h's.
std::vector<LayerCase> kind_cases_for(const ModelDesc& m);

// A case the CPU backend can run as Winograd (fp32 3x3 stride-1 ungrouped convolution).
bool winograd_case(const LayerCase& c);

// Norm-wise relative error a layer at precision p may show against an fp32/fp64 reference.
double tolerance(Precision p);

// ||a - b|| / ||b|| (b the reference); an all-zero reference compares absolutely.
double rel_err(const std::vector<float>& a, const std::vector<float>& b);

// A row judged by rel_err against tolerance(p), its figures still to fill.
CheckRow rel_err_row(std::string group, std::string name, Precision p);

// Folds one comparison into a row: the largest rel_err(got, want) so far becomes its error, that quantity's name
// its detail.
void take_worst(CheckRow& row, const std::string& what, const std::vector<float>& got, const std::vector<float>& want);

// One row: the worst of the case's comparisons (the quantity is named in detail). reference == nullptr uses
// the naive reference, else that backend at fp32. Failures to run (an exception) are a failed row naming it.
CheckRow check_layer(Backend& dut, Backend* reference, const LayerCase& c, Precision p);

}  // namespace mg::check
