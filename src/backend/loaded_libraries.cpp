#include "backend/loaded_libraries.h"

#include <link.h>

#include <cstdint>
#include <filesystem>

#include <oneapi/dnnl/dnnl.h>

namespace mg {

#ifdef MG_HAVE_CUDA
// src/backend/cuda/cuda_backend.cpp
void cuda_loaded_libraries(std::map<std::string, LoadedLibrary>& out);
#endif

namespace {

struct Lookup {
  uintptr_t address = 0;
  std::string file;
  bool found = false;
};

int find_object(dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<Lookup*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (q->address >= start && q->address < start + ph.p_memsz) {
      // The main program is listed with an empty name.
      q->file = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe";
      q->found = true;
      return 1;
    }
  }
  return 0;
}

std::string version3(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

std::string loaded_file_of(const void* address) {
  Lookup q;
  q.address = reinterpret_cast<uintptr_t>(address);
  dl_iterate_phdr(find_object, &q);
  if (!q.found) return "";
  // The loader keeps the name it opened (a soname symlink, or /proc/self/exe): record the file behind it.
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(q.file, ec);
  return ec ? q.file : real.string();
}

std::map<std::string, LoadedLibrary> backend_loaded_libraries() {
  std::map<std::string, LoadedLibrary> out;
  const dnnl_version_t* d = dnnl_version();
  out["onednn"] = {loaded_file_of(reinterpret_cast<const void*>(&dnnl_version)),
                   version3(d->major, d->minor, d->patch)};
#ifdef MG_HAVE_CUDA
  cuda_loaded_libraries(out);
#endif
  return out;
}

}  // namespace mg
