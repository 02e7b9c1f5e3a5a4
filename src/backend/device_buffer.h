// Owning handle to one device allocation of a Backend (RAII over device_alloc/device_free).
#pragma once
#include <cstddef>
#include <exception>
#include <utility>

#include "backend/backend.h"

namespace mg {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Backend& be, size_t bytes) : be_(&be), bytes_(bytes), p_(bytes ? be.device_alloc(bytes) : nullptr) {}
  ~DeviceBuffer() {
    try {
      reset();
    } catch (const std::exception&) {
      // A destructor cannot report a failed free; the device is being torn down or already failed.
    }
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      be_ = std::exchange(o.be_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      p_ = std::exchange(o.p_, nullptr);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void reset() {
    if (p_ && be_) be_->device_free(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  void* get() const { return p_; }
  size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const { return static_cast<T*>(p_); }
  Tensor tensor(Shape s, DType t) const { return Tensor{p_, std::move(s), t}; }

 private:
  Backend* be_ = nullptr;
  size_t bytes_ = 0;
  void* p_ = nullptr;
};

}  // namespace mg
