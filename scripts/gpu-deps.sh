#!/usr/bin/env bash
# Prepares, on a machine with Debian's package archive (this dev machine), a prefix of the Debian libraries
# mgbench builds against, for a GPU machine whose image has CUDA/cuDNN/NCCL but not these. The .debs are
# fetched with `apt-get download` (no root needed) and unpacked with `dpkg -x`, nothing is installed.
#
#   scripts/gpu-deps.sh [PREFIX]        # default ./.gpu-deps/root (git-ignored); prints its size
#
# Then carry .gpu-deps to the GPU machine and run scripts/gpu-check.sh there (it picks the prefix up from
# MG_DEPS_PREFIX, default ./.gpu-deps/root). What goes in:
#   headers + CMake packages : oneDNN, Gloo, CLI11, fmt, nlohmann-json, Catch2, libjpeg-turbo, hwloc, Open MPI,
#                              OpenCL headers (oneDNN's CMake package asks for them)
#   run-time libraries       : the shared libraries those link to (list below), not the base system
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$root/.gpu-deps/root}
# The .debs themselves are not kept: the prefix alone is what gets carried (64 MiB limit).
debs=$(mktemp -d)
trap 'rm -rf "$debs"' EXIT

dev_pkgs=(libdnnl-dev libgloo-dev libcli11-dev libfmt-dev nlohmann-json3-dev catch2 libturbojpeg0-dev
          libhwloc-dev libopenmpi-dev opencl-c-headers ocl-icd-opencl-dev)
# The shared libraries mgbench loads from these, as `ldd` lists them for libdnnl.so.2, libmpi.so.40,
# libturbojpeg.so.0, libfmt.so.9, libhwloc.so.15, libOpenCL.so.1 and libgloo.so.0.5.0, minus the base
# system (glibc, libstdc++, libgcc, libgomp, zlib, libudev), which the GPU machine's compiler and OS provide.
runtime=(libdnnl2 libfmt9 libturbojpeg0 libhwloc15 libopenmpi3 libevent-core-2.1-7 libevent-pthreads-2.1-7
         ocl-icd-libopencl1 libgloo0 libhiredis0.14 libibverbs1 libnl-3-200 libnl-route-3-200)

mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
cd "$debs"
echo "gpu-deps: downloading ${#dev_pkgs[@]} development and ${#runtime[@]} run-time packages"
apt-get download "${dev_pkgs[@]}" "${runtime[@]}" >/dev/null
for f in ./*.deb; do dpkg -x "$f" "$prefix"; done
# Keep the prefix small enough to carry (< 60 MiB): no documentation, no Fortran/Java/OpenSHMEM bindings, no
# static archives that have a shared twin, no Open MPI plugins (loaded only under mpirun, which the GPU check
# does not use).
lib="$prefix/usr/lib/x86_64-linux-gnu"
rm -rf "$prefix/usr/share/doc" "$prefix/usr/share/man" "$prefix/usr/share/lintian" "$lib/fortran" \
  "$lib/openmpi/lib/openmpi3"
rm -f "$lib"/libmpi_mpifh* "$lib"/libmpi_usempi* "$lib"/libmpi_java* "$lib"/liboshmem* "$lib"/libhwloc.a \
  "$lib"/libturbojpeg.a
printf '%s\n' "${dev_pkgs[@]}" "${runtime[@]}" | sort > "$(dirname "$prefix")/packages.txt"
# PyTorch's reference loop lives in ../shared, which does not travel to a device machine: carry a copy.
anchor=${MG_TORCH_ANCHOR:-$root/../shared/anchors/torch_gpu_train.py}
if [[ -f "$anchor" ]]; then
  mkdir -p "$(dirname "$prefix")/anchors"
  cp "$anchor" "$(dirname "$prefix")/anchors/"
  echo "gpu-deps: copied the PyTorch reference $anchor into $(dirname "$prefix")/anchors/"
else
  echo "gpu-deps: warning: no $anchor: the GPU check will have no PyTorch reference (set MG_TORCH_ANCHOR)"
fi
echo "gpu-deps: unpacked into $prefix ($(du -sh "$prefix" | cut -f1); packages listed in $(dirname "$prefix")/packages.txt)"
