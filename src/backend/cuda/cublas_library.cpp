#include "backend/cuda/cublas_library.h"

#include <dlfcn.h>

#include <atomic>
#include <type_traits>

#include <cublas_v2.h>

#include "core/error.h"

namespace mg::cuda {

// The hand-written pointer types must be exactly the header's declarations (unevaluated: nothing is linked).
static_assert(std::is_same_v<decltype(static_cast<CublasGemmEx>(&::cublasGemmEx)), CublasGemmEx>);
static_assert(std::is_same_v<decltype(static_cast<CublasGemmStridedBatchedEx>(&::cublasGemmStridedBatchedEx)),
                             CublasGemmStridedBatchedEx>);

namespace {

#define MG_CUBLAS_STR2(x) #x
#define MG_CUBLAS_STR(x) MG_CUBLAS_STR2(x)
// Literals, so the names are in the binary: scripts/package.sh reads them to know what the host must provide.
constexpr const char* kCublasSoname = "libcublas.so." MG_CUBLAS_STR(CUBLAS_VER_MAJOR);
constexpr const char* kCublasLtSoname = "libcublasLt.so." MG_CUBLAS_STR(CUBLAS_VER_MAJOR);

std::atomic<const CublasLibrary*> opened{nullptr};

void* open_or_throw(const std::string& soname) {
  // RTLD_LOCAL: the entry points are reached through dlsym only, and cuDNN opens its own cuBLASLt by name.
  void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw Error("cannot open cuBLAS (" + soname + ", needed by the CUDA backend): " + dlerror());
  return h;
}

template <typename F>
void resolve(void* handle, const std::string& soname, const char* symbol, F& out) {
  void* p = dlsym(handle, symbol);
  if (!p) throw Error(soname + " has no " + symbol + ": not the cuBLAS this build was compiled against");
  out = reinterpret_cast<F>(p);
}

CublasLibrary open_library() {
  CublasLibrary l;
  l.soname = kCublasSoname;
  l.lt_soname = kCublasLtSoname;
  void* blas = open_or_throw(l.soname);
  void* lt = open_or_throw(l.lt_soname);
  // The exported names: cublas_v2.h maps cublasCreate and friends to their _v2 symbols.
  resolve(blas, l.soname, "cublasCreate_v2", l.create);
  resolve(blas, l.soname, "cublasDestroy_v2", l.destroy);
  resolve(blas, l.soname, "cublasSetStream_v2", l.set_stream);
  resolve(blas, l.soname, "cublasSetPointerMode_v2", l.set_pointer_mode);
  resolve(blas, l.soname, "cublasGemmEx", l.gemm_ex);
  resolve(blas, l.soname, "cublasGemmStridedBatchedEx", l.gemm_strided_batched_ex);
  resolve(blas, l.soname, "cublasGetProperty", l.get_property);
  resolve(blas, l.soname, "cublasGetStatusName", l.status_name);
  resolve(blas, l.soname, "cublasGetStatusString", l.status_string);
  resolve(lt, l.lt_soname, "cublasLtGetVersion", l.lt_version);
  return l;
}

}  // namespace

const CublasLibrary& cublas_library() {
  // A throw leaves it unset: the next call tries again. `opened` is written once, not on every GEMM's call.
  static const CublasLibrary& library = [] () -> const CublasLibrary& {
    static const CublasLibrary l = open_library();
    opened.store(&l, std::memory_order_release);
    return l;
  }();
  return library;
}

const CublasLibrary* cublas_library_if_open() { return opened.load(std::memory_order_acquire); }

std::string cublas_status_text(cublasStatus_t status) {
  const CublasLibrary* l = cublas_library_if_open();
  if (!l) return "cuBLAS status " + std::to_string(static_cast<int>(status));
  return std::string(l->status_name(status)) + ": " + l->status_string(status);
}

}  // namespace mg::cuda
