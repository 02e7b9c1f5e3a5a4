#include "backend/layer_base.h"

namespace mg {

namespace {
LayerShapes checked(const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt) {
  LayerShapes s = layer_shapes(d, in_shapes);
  if (s.fault != LayerFault::None) throw UsageError(s.why);
  // Training: batch statistics of one value per channel have no variance, and the unbiased running variance
  // divides by count - 1. (--forward-only runs inference, on the running statistics: any batch works.)
  if (d.kind == LayerKind::BatchNorm && opt.backward) {
    const Shape& x = in_shapes[0];
    if (x.n() * x.h() * x.w() < 2) {
      throw UsageError("batch-norm layer " + d.name + ": training needs more than one value per channel, input " +
                       x.str());
    }
  }
  return s;
}
}  // namespace

LayerBase::LayerBase(const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt, DType act)
    : LayerBase(d, in_shapes, opt, act, checked(d, in_shapes, opt)) {}

LayerBase::LayerBase(const LayerDesc& d, const std::vector<Shape>& in_shapes, const LayerOptions& opt, DType act,
                     LayerShapes shapes)
    : desc_(d),
      in_shapes_(in_shapes),
      out_shape_(std::move(shapes.out)),
      dt_(act),
      opt_(opt),
      param_shapes_(std::move(shapes.params)) {}

void LayerBase::bind(const std::vector<float*>& params, const std::vector<float*>& grads) {
  MG_ENSURE(params.size() == param_shapes_.size() && grads.size() == param_shapes_.size(),
            where() + "bind() got " + std::to_string(params.size()) + " params and " + std::to_string(grads.size()) +
                " grads, expected " + std::to_string(param_shapes_.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    MG_ENSURE(params[i] && grads[i], where() + "null parameter or gradient storage");
  }
  params_ = params;
  grads_ = grads;
}

void LayerBase::check_bound() const {
  MG_ENSURE(params_.size() == param_shapes_.size(), where() + "used before bind()");
}

void LayerBase::check_io(const std::vector<Tensor>& in, const Tensor& out) const {
  MG_ENSURE(in.size() == in_shapes_.size(), where() + "wrong number of inputs");
  for (size_t i = 0; i < in.size(); ++i) {
    MG_ENSURE(in[i].numel() == in_shapes_[i].numel() && in[i].dtype == dt_,
              where() + "input " + std::to_string(i) + " is " + in[i].shape.str() + " " + dtype_name(in[i].dtype) +
                  ", expected " + in_shapes_[i].str() + " " + dtype_name(dt_));
  }
  MG_ENSURE(out.numel() == out_shape_.numel() && out.dtype == dt_,
            where() + "output is " + out.shape.str() + " " + dtype_name(out.dtype) + ", expected " +
                out_shape_.str() + " " + dtype_name(dt_));
}

void LayerBase::check_token_io(const std::vector<Tensor>& in, const Tensor& out) const {
  MG_ENSURE(in.size() == 1 && in[0].dtype == DType::I32 && in[0].numel() == in_shapes_[0].numel(),
            where() + "input must be int32 token ids " + in_shapes_[0].str());
  MG_ENSURE(out.numel() == out_shape_.numel() && out.dtype == dt_,
            where() + "output is " + out.shape.str() + " " + dtype_name(out.dtype) + ", expected " +
                out_shape_.str() + " " + dtype_name(dt_));
}

}  // namespace mg
