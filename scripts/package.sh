#!/usr/bin/env bash
# Builds the relocatable bundle mgbench-VERSION-linux-x86_64-cuda13.tar.xz (docs/bundle.md): the mgbench binary
# and the GPU test set with every shared library they need except the C/C++ runtime and CUDA's own (cudart,
# cuBLAS, cuDNN, NCCL), which the launcher bin/mgbench finds on the host or in a Python environment's NVIDIA
# wheels. For GPU machines without our Debian libraries, apt or a network.
#
#   scripts/package.sh                       # build (build/, CUDA for sm_80 and sm_90 plus PTX), then package
#   scripts/package.sh --no-build [--build-dir DIR] [--out DIR]   # package an existing build as it is
#
# The archive and its unpacked folder go to --out (default dist/). Exit 1 when the build has no CUDA backend,
# lacks sm_80/sm_90 code, a library does not resolve, or the archive is over 50 MiB.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MGBENCH_BUILD_DIR:-$root/build}
out=$root/dist
do_build=1
while (($#)); do
  case $1 in
    --build-dir) build=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --no-build) do_build=0; shift ;;
    *) echo "package.sh: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
die() { echo "package.sh: $*" >&2; exit 1; }
for tool in patchelf xz readelf; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/setup.sh installs it)"
done

if ((do_build)); then
  MGBENCH_BUILD_DIR=$build MGBENCH_CUDA=ON "$root/scripts/setup.sh" mgbench test_gpu
fi
[[ -x $build/mgbench && -x $build/tests/test_gpu ]] || die "$build has no mgbench and tests/test_gpu: build them first"
readelf -d "$build/mgbench" | grep -q 'libcudart\.so' ||
  die "$build/mgbench was built without the CUDA backend: the bundle is the CUDA build (MGBENCH_CUDA=ON)"
# The GPU code the build carries: cuobjdump where the toolkit has it, else the flags the .cu files were built with.
cuobjdump=${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump
if [[ -x $cuobjdump ]]; then
  cuda_code="$("$cuobjdump" --list-elf "$build/mgbench" | grep -o 'sm_[0-9]*' | sort -u | tr '\n' ' ')PTX $("$cuobjdump" --list-ptx "$build/mgbench" | grep -o 'sm_[0-9]*' | sort -u | tr '\n' ' ')"
else
  cuda_code=$(grep -ho 'arch=compute_[0-9]*,code=\[[^]]*\]' "$build/CMakeFiles/mg_cuda_kernels.dir/flags.make" | sort -u | tr '\n' ' ')
fi
for want in 'sm_80' 'sm_90' 'compute_90|PTX.*sm_90'; do
  grep -Eq "$want" <<<"$cuda_code" || die "$build/mgbench lacks $want GPU code (CMAKE_CUDA_ARCHITECTURES; it has: $cuda_code)"
done

version=$(sed -n 's/^project(mgbench VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
name=mgbench-$version-linux-x86_64-cuda13
stage=$out/$name
rm -rf "$stage" "$out/$name.tar.xz"
mkdir -p "$stage"/{bin,libexec,lib,share/mgbench}

# What the host provides: the C/C++ runtime (every Linux system) and CUDA's libraries (driver, toolkit or wheels).
host_provided='^(linux-vdso|ld-linux-x86-64|libc|libm|libpthread|libdl|librt|libutil|libresolv|libstdc\+\+|libgcc_s)\.so|^lib(cuda|cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|nvidia-ml)\.so'
cuda_needed=()
for exe in mgbench tests/test_gpu; do
  cp "$build/$exe" "$stage/libexec/"
  strip --strip-unneeded "$stage/libexec/$(basename "$exe")"
  # ldd resolves the whole tree as the loader would; every library must resolve here.
  while read -r soname arrow path _; do
    [[ $arrow == "=>" ]] || continue
    [[ $path != "not" ]] || die "$exe: $soname does not resolve on this machine"
    if [[ $soname =~ $host_provided ]]; then
      [[ $soname =~ ^lib(cuda|cudart|cublas|cublasLt|cudnn|nccl)\.so ]] && cuda_needed+=("$soname")
      continue
    fi
    [[ -e $stage/lib/$soname ]] || cp -L "$path" "$stage/lib/$soname"
  done < <(ldd "$build/$exe")
done
# cuBLAS is opened at run time (backend/cuda/cublas_library.h), so ldd does not list it: the sonames the binary names.
mapfile -t opened < <(grep -aoE 'libcublas(Lt)?\.so\.[0-9]+' "$build/mgbench" | sort -u || true)
[[ " ${opened[*]} " == *" libcublas.so."* ]] || die "$build/mgbench names no libcublas.so.N to open at run time"
cuda_needed+=("${opened[@]}")
chmod u+w "$stage"/lib/*
for f in "$stage"/libexec/*; do patchelf --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$stage"/lib/*; do patchelf --set-rpath '$ORIGIN' "$f"; done

# The launcher knows which of CUDA's libraries the binaries need (their sonames as linked).
cuda_list=$(printf '%s\n' "${cuda_needed[@]}" | sort -u | tr '\n' ' ')
sed "s|@CUDA_LIBS@|${cuda_list% }|" "$root/scripts/bundle/launcher.sh" >"$stage/bin/mgbench"
chmod +x "$stage/bin/mgbench"
ln -s mgbench "$stage/bin/test_gpu"
install -m 755 "$root/scripts/bundle/gpu-check.sh" "$stage/bin/mgbench-gpu-check"
cp "$root/scripts/measure/torch_reference.py" "$root/scripts/measure/torch_gpt2.py" \
  "$root/scripts/bundle/gpu_check_summary.py" "$root/scripts/bundle/published_resnet50.json" "$stage/share/mgbench/"
cp -r "$root/configs" "$stage/share/mgbench/"
cp "$root/docs/bundle.md" "$stage/README.md"

# MANIFEST: what was built, from which commit, and what the host must provide.
{
  echo "mgbench $version, commit $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "built on $(. /etc/os-release && echo "$PRETTY_NAME"), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "CUDA code: $cuda_code"
  echo "host provides (not shipped): C/C++ runtime, NVIDIA driver, $cuda_list"
  echo "needs at least: $(objdump -T "$stage"/libexec/* "$stage"/lib/* 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1), $(objdump -T "$stage"/libexec/* "$stage"/lib/* 2>/dev/null | grep -o 'GLIBCXX_3\.4\.[0-9]*' | sort -uV | tail -1)"
  echo "shipped libraries:"
  (cd "$stage/lib" && for f in *; do printf '  %s  %s\n' "$f" "$(dpkg -S "*/$f" 2>/dev/null | cut -d: -f1 | head -1)"; done)
} >"$stage/MANIFEST"

XZ_OPT=${XZ_OPT:--6 -T0} tar -C "$out" -cJf "$out/$name.tar.xz" "$name"
size=$(stat -c %s "$out/$name.tar.xz")
echo "package.sh: $out/$name.tar.xz ($((size / 1024 / 1024)) MiB; unpacked in $stage)"
((size <= 50 * 1024 * 1024)) || die "the archive is $((size / 1024 / 1024)) MiB, over the 50 MiB limit"
