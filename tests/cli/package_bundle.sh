#!/usr/bin/env bash
# The relocatable bundle (scripts/package.sh) runs on a machine without our Debian libraries: unpacked, it runs
# `mgbench models`, `mgbench check --device cpu` and a 3-step CPU training run in a mount namespace where every
# library of the system's library folder is hidden except the C/C++ runtime (CUDA's stay where the toolkit
# put them), and every object the loader brings in comes from the bundle, the C/C++ runtime or CUDA.
source "$(dirname "$0")/lib.bash"
build=${MG_BINARY_DIR:?}
if [[ ! -x $build/tests/test_gpu ]] || ! readelf -d "$MGBENCH" | grep -q 'libcudart\.so'; then
  echo "skipped: this build has no CUDA backend or no GPU test binary; the bundle is the CUDA build"
  exit 77
fi
if unshare -m true 2>/dev/null; then ns=(unshare -m); elif unshare -rm true 2>/dev/null; then ns=(unshare -rm); else
  echo "skipped: cannot make a mount namespace here (needs root or unprivileged user namespaces)"
  exit 77
fi

expect_status 0 bash "$MG_SOURCE_DIR/scripts/package.sh" --no-build --build-dir "$build" --out "$TMP/dist"
archive=$(ls "$TMP"/dist/mgbench-*-linux-x86_64-cuda13.tar.xz) || fail "no archive named mgbench-VERSION-linux-x86_64-cuda13.tar.xz"
mkdir "$TMP/unpacked" && tar -C "$TMP/unpacked" -xJf "$archive" || fail "cannot unpack $archive"
b=$(ls -d "$TMP"/unpacked/mgbench-*)
for f in bin/mgbench bin/test_gpu bin/mgbench-gpu-check libexec/mgbench libexec/test_gpu MANIFEST README.md \
         share/mgbench/torch_reference.py share/mgbench/torch_gpt2.py share/mgbench/gpu_check_summary.py \
         share/mgbench/published_resnet50.json; do
  [[ -e $b/$f ]] || fail "the bundle has no $f"
done
[[ -x $b/bin/mgbench-gpu-check ]] || fail "the bundle's bin/mgbench-gpu-check is not executable"
if ! nvidia-smi -L >/dev/null 2>&1; then
  expect_status 77 "$b/bin/mgbench-gpu-check" "$TMP/gpu-check"
  [[ ! -e $TMP/gpu-check ]] || fail "mgbench-gpu-check without a GPU wrote $TMP/gpu-check"
fi
readelf -d "$b/libexec/mgbench" | grep -q 'R.*PATH.*\[\$ORIGIN/../lib\]' || fail "libexec/mgbench's RPATH is not \$ORIGIN/../lib"
ls "$b"/lib/ | grep -Eq '^lib(cudart|cublas|cudnn|nccl)' && fail "the bundle ships CUDA's libraries"

# The system library folder as a machine without our packages has it: the C/C++ runtime only.
libdir=/usr/lib/x86_64-linux-gnu
keep=$TMP/keep
mkdir "$keep"
for pattern in 'ld-linux-x86-64.so.2' 'libc.so.6' 'libm.so.6' 'libstdc++.so.6*' 'libgcc_s.so.1' 'libpthread.so.0' \
               'libdl.so.2' 'librt.so.1'; do
  cp -a "$libdir"/$pattern "$keep/" || fail "no $pattern in $libdir"
done
# Only the C runtime is left once the folder is covered, so the namespace's commands are dash builtins and the bundle.
cat >"$TMP/inside.sh" <<EOF
mount --make-rprivate / && mount --bind "$keep" "$libdir" || exit 90
[ -e "$libdir/libdnnl.so.3" ] || [ -e "$libdir/libgloo.so.0" ] || [ -e "$libdir/libfmt.so.9" ] && exit 91
"$MGBENCH" --version >"$TMP/unbundled.txt" 2>&1 && exit 92
"$b/bin/mgbench" models >"$TMP/models.txt" 2>&1 || exit 93
"$b/bin/mgbench" check --device cpu --json "$TMP/check.json" >"$TMP/check.txt" 2>&1 || exit 94
LD_DEBUG=files "$b/bin/mgbench" --device cpu --model resnet18 --image-size 32 --batch-size 4 --steps 3 --warmup 1 \
  --no-progress --json "$TMP/train.json" >"$TMP/train.txt" 2>"$TMP/train.ld" || exit 95
EOF
"${ns[@]}" sh "$TMP/inside.sh"
rc=$?
case $rc in
  0) ;;
  90) fail "could not cover $libdir in the mount namespace" ;;
  91) fail "$libdir still shows our Debian libraries inside the namespace" ;;
  92) fail "the unbundled build ran with the libraries hidden, so hiding them proves nothing: $(cat "$TMP/unbundled.txt")" ;;
  93) cat "$TMP/models.txt"; fail "the bundle's 'mgbench models' failed without the system's libraries" ;;
  94) cat "$TMP/check.txt"; fail "the bundle's 'mgbench check --device cpu' failed without the system's libraries" ;;
  95) cat "$TMP/train.txt"; grep -v 'calling\|file=' "$TMP/train.ld" | tail -5; fail "the bundle's 3-step CPU training failed without the system's libraries" ;;
  *) fail "the namespace's script exited $rc" ;;
esac
grep -q resnet50 "$TMP/models.txt" || fail "mgbench models lists no resnet50"
json_check "$TMP/check.json" "d['passed'] and len(d['rows']) > 0" || fail "mgbench check --device cpu did not pass"
json_check "$TMP/train.json" "d['runs'][0]['images_per_sec'] > 0" || fail "the training run wrote no throughput"

# Every object the loader initialised: the bundle, the C/C++ runtime kept above, or CUDA's own folder.
loaded=$(sed -n 's/.*calling init: //p' "$TMP/train.ld" | xargs -r realpath -ms | sort -u)
[[ -n $loaded ]] || fail "LD_DEBUG=files listed no loaded object"
grep -q "^$b/lib/libdnnl" <<<"$loaded" || fail "oneDNN was not loaded from the bundle: $loaded"
outside=$(grep -Ev "^($b/(lib|libexec)/|(/usr)?/lib/x86_64-linux-gnu/(ld-linux-x86-64|libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so|/lib64/ld-linux|/usr/local/cuda[^/]*/)" <<<"$loaded")
[[ -z $outside ]] || fail "loaded from outside the bundle, the C runtime and CUDA: $outside"
echo "bundle ran with the system's libraries hidden; $(wc -l <<<"$loaded") objects loaded, $(ls "$b/lib" | wc -l) shipped"

# CUDA's libraries only in a Python environment's NVIDIA wheels (site-packages/nvidia/{cudnn,nccl,cu13}/lib, the
# layout of the cu13 wheels), with the toolkit and the loader's cache hidden: the launcher finds them there; with
# no wheels either, it names the missing library in one line and exits 2.
cuda=$(readlink -f /usr/local/cuda)
site=$TMP/site-packages/nvidia
mkdir -p "$TMP/cuda-libs" "$site"/{cudnn,nccl,cu13}/lib "$TMP/no-cache"
: >"$TMP/empty-cache"
for f in "$cuda"/lib/lib{cudnn,nccl,cudart,cublas}*.so.*; do
  case $(basename "$f") in libcudnn*) w=cudnn ;; libnccl*) w=nccl ;; *) w=cu13 ;; esac
  ln -s "$TMP/cuda-libs/$(basename "$f")" "$site/$w/lib/$(basename "$f")"
done
printf '#!/bin/sh\necho %s\n' "$site" >"$TMP/python-with-wheels" && chmod +x "$TMP/python-with-wheels"
cat >"$TMP/wheels.sh" <<EOF
mount --make-rprivate / && mount --bind "$cuda/lib" "$TMP/cuda-libs" && mount -t tmpfs none "$cuda" &&
  mount --bind "$TMP/empty-cache" /etc/ld.so.cache || exit 90
MGBENCH_PYTHON="$TMP/python-with-wheels" MGBENCH_BUNDLE_VERBOSE=1 "$b/bin/mgbench" --version \
  >"$TMP/wheels.out" 2>"$TMP/wheels.err" || exit 91
MGBENCH_PYTHON="$TMP/python-with-wheels" MGBENCH_BUNDLE_PRINT_LIBRARY_PATH=1 "$b/bin/mgbench" >"$TMP/libpath.out" || exit 92
MGBENCH_PYTHON=/bin/false "$b/bin/mgbench" --version >"$TMP/none.out" 2>"$TMP/none.err"
echo \$? >"$TMP/none.rc"
EOF
"${ns[@]}" sh "$TMP/wheels.sh"
case $? in
  0) ;;
  90) fail "could not hide the CUDA toolkit and the loader's cache in the mount namespace" ;;
  91) cat "$TMP/wheels.err"; fail "the bundle did not start with CUDA's libraries only in a Python environment's wheels" ;;
  92) fail "MGBENCH_BUNDLE_PRINT_LIBRARY_PATH=1 failed with CUDA's libraries in the wheels" ;;
  *) fail "the wheels namespace's script failed" ;;
esac
for lib in libcudnn.so.9 libnccl.so.2 libcudart.so.13 libcublas.so.13 libcublasLt.so.13; do
  grep -q "$lib from $site/" "$TMP/wheels.err" || { cat "$TMP/wheels.err"; fail "$lib was not taken from the wheels"; }
done
# What compute-sanitizer is given in place of the launcher (gpu-check): the same folders, cuBLAS's among them.
[[ $(cat "$TMP/libpath.out") == *"$site/cu13/lib"* && $(cat "$TMP/libpath.out") == *"$site/cudnn/lib"* ]] ||
  fail "the printed library path lacks the wheels' folders: $(cat "$TMP/libpath.out")"
[[ $(cat "$TMP/none.rc") == 2 && $(wc -l <"$TMP/none.err") == 1 ]] ||
  { cat "$TMP/none.err"; fail "with CUDA's libraries nowhere: exit $(cat "$TMP/none.rc"), expected 2 and one line"; }
grep -q "CUDA's lib.* was not found" "$TMP/none.err" || fail "the missing-library message: $(cat "$TMP/none.err")"
echo "the launcher found CUDA's libraries in the wheels, and named the missing one without them"
