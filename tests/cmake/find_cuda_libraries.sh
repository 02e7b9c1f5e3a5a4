#!/usr/bin/env bash
# cmake/Find{CUDNN,NCCL}.cmake on faked pip-wheel layouts (site-packages/nvidia/{cudnn,nccl}/{include,lib}): only
# the versioned files (libcudnn.so.9, libnccl.so.2) are found, and a build for another CUDA major than the
# toolkit's is refused with a message naming both majors. Headers and libraries are the toolkit's own.
set -euo pipefail
src=${MG_SOURCE_DIR:?}
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=$cuda/lib64
for f in "$cuda/include/cudnn_version.h" "$cuda/include/nccl.h" "$lib/libcudnn.so.9" "$lib/libcudnn_adv.so.9" "$lib/libnccl.so.2"; do
  [[ -e "$f" ]] || { echo "skipped: $f is not here (needs the CUDA toolkit with cuDNN 9 and NCCL 2)"; exit 77; }
done
major=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$cuda/include/cuda_runtime_api.h")
major=$((major / 1000))
other=$((major - 1))
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# wheel DIR CUDA_MAJOR_OF_LIBS: a site-packages tree; libraries of another major are small files with its markers.
wheel() {
  local site=$1/site-packages/nvidia
  mkdir -p "$site"/cudnn/{include,lib} "$site"/nccl/{include,lib}
  cp "$cuda"/include/cudnn*.h "$site/cudnn/include/"
  cp "$cuda/include/nccl.h" "$site/nccl/include/"
  ln -s "$lib/libcudnn.so.9" "$site/cudnn/lib/libcudnn.so.9"
  if [[ $2 == "$major" ]]; then
    ln -s "$lib/libcudnn_adv.so.9" "$site/cudnn/lib/libcudnn_adv.so.9"
    ln -s "$lib/libnccl.so.2" "$site/nccl/lib/libnccl.so.2"
  else
    printf 'padding\0libcublasLt.so.%s\0' "$2" >"$site/cudnn/lib/libcudnn_adv.so.9"
    printf 'padding\0NCCL version 2.21.5+cuda%s.4\0' "$2" >"$site/nccl/lib/libnccl.so.2"
  fi
  ls "$site"/cudnn/lib/libcudnn.so "$site"/nccl/lib/libnccl.so 2>/dev/null && fail "the fake layout has unversioned names"
  return 0
}

configure() {  # DIR: configure the tiny project against DIR's wheel tree; output in DIR/out
  cmake -S "$src/tests/cmake/find_cuda" -B "$1/build" -DMG_SOURCE_DIR="$src" \
    -DCUDNN_ROOT="$1/site-packages/nvidia/cudnn" -DNCCL_ROOT="$1/site-packages/nvidia/nccl" \
    -DCUDAToolkit_VERSION_MAJOR="$major" >"$1/out" 2>&1 || { cat "$1/out"; fail "configure failed"; }
}

wheel "$tmp/ok" "$major"
configure "$tmp/ok"
grep -q "mg-find: CUDNN found=TRUE library=$tmp/ok/site-packages/nvidia/cudnn/lib/libcudnn.so.9 version=9\..* cuda=$major\$" "$tmp/ok/out" \
  || { cat "$tmp/ok/out"; fail "versioned-only libcudnn.so.9 of CUDA $major not found"; }
grep -q "mg-find: NCCL found=TRUE library=$tmp/ok/site-packages/nvidia/nccl/lib/libnccl.so.2 version=2\..* cuda=$major\$" "$tmp/ok/out" \
  || { cat "$tmp/ok/out"; fail "versioned-only libnccl.so.2 of CUDA $major not found"; }

wheel "$tmp/old" "$other"
configure "$tmp/old"
for p in CUDNN NCCL; do
  grep -q "mg-find: $p found=FALSE" "$tmp/old/out" || { cat "$tmp/old/out"; fail "$p built for CUDA $other was accepted"; }
  # CMake wraps a warning's lines: read the output as one line.
  tr -s '\n ' '  ' <"$tmp/old/out" | grep -q "$p refused: [^ ]* was built for CUDA $other, but the toolkit is CUDA $major" \
    || { cat "$tmp/old/out"; fail "no message naming CUDA $other and $major for $p"; }
done
echo "ok"
