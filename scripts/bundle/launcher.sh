#!/bin/sh
# The bundle's launcher (bin/mgbench, bin/test_gpu): CUDA's libraries are not shipped, so it finds each one the
# binaries need on this host (the loader's own paths first, then the CUDA toolkit, then a Python environment's
# NVIDIA wheels), puts their folders on LD_LIBRARY_PATH and runs libexec/<name>. MGBENCH_CUDA_LIBS=DIR[:DIR...]
# is searched before anything else; MGBENCH_BUNDLE_VERBOSE=1 says where each library was found;
# MGBENCH_BUNDLE_PRINT_LIBRARY_PATH=1 prints the LD_LIBRARY_PATH it would run with and exits.
here=$(dirname "$(readlink -f "$0")")
prog=$(basename "$0")
exe=$here/../libexec/$prog
need="@CUDA_LIBS@"

in_dirs() {  # SONAME DIRS(colon-separated): prints the first folder holding SONAME
  old_ifs=$IFS; IFS=:
  for d in $2; do
    if [ -n "$d" ] && [ -e "$d/$1" ]; then IFS=$old_ifs; echo "$d"; return 0; fi
  done
  IFS=$old_ifs; return 1
}
in_cache() {  # SONAME: the loader's cache lists a 64-bit copy (shell only: this runs before any library is sure)
  /sbin/ldconfig -p 2>/dev/null | {
    while read -r name arch _; do
      case "$name $arch" in "$1 (libc6,x86-64"*) exit 0 ;; esac
    done
    exit 1
  }
}

# Folders of NVIDIA's wheels: nvidia/<package>/lib (cuDNN, NCCL) and nvidia/cu13/lib (CUDA 13's toolkit wheels).
wheel_dirs() {
  for py in ${MGBENCH_PYTHON:-} python3 python; do
    command -v "$py" >/dev/null 2>&1 || continue
    "$py" -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null
  done
  for p in "${VIRTUAL_ENV:-/nonexistent}"/lib/python3*/site-packages/nvidia /opt/*/.venv/lib/python3*/site-packages/nvidia \
           /usr/local/lib/python3*/dist-packages/nvidia /usr/lib/python3/dist-packages/nvidia; do
    [ -d "$p" ] && echo "$p"
  done
}
search=${MGBENCH_CUDA_LIBS:-}
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$d" ] && search=$search:$d/lib64:$d/lib:$d/targets/x86_64-linux/lib
done
wheels=""
added=""
for lib in $need; do
  if ! { [ -n "${MGBENCH_CUDA_LIBS:-}" ] && dir=$(in_dirs "$lib" "$MGBENCH_CUDA_LIBS"); }; then
    if in_dirs "$lib" "${LD_LIBRARY_PATH:-}" >/dev/null || in_cache "$lib"; then
      [ "${MGBENCH_BUNDLE_VERBOSE:-0}" = 1 ] && echo "mgbench bundle: $lib from the loader's paths" >&2
      continue
    fi
    if ! dir=$(in_dirs "$lib" "$added:$search"); then
      [ -n "$wheels" ] || wheels=$(wheel_dirs | while read -r w; do printf ':%s' "$w"/*/lib; done)
      if ! dir=$(in_dirs "$lib" "$wheels"); then
        echo "mgbench: CUDA's $lib was not found (the bundle does not ship CUDA's libraries): install it (CUDA 13 toolkit, cuDNN 9, NCCL 2), or set MGBENCH_CUDA_LIBS to the folder that has it (e.g. a Python environment's site-packages/nvidia/cudnn/lib)" >&2
        exit 2
      fi
    fi
  fi
  [ "${MGBENCH_BUNDLE_VERBOSE:-0}" = 1 ] && echo "mgbench bundle: $lib from $dir" >&2
  case ":$added:" in *":$dir:"*) ;; *) added=${added:+$added:}$dir ;; esac
done
[ -n "$added" ] && export LD_LIBRARY_PATH="$added${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# For a tool that must start libexec/<name> itself (compute-sanitizer): the library path this launcher would use.
if [ "${MGBENCH_BUNDLE_PRINT_LIBRARY_PATH:-0}" = 1 ]; then echo "${LD_LIBRARY_PATH:-}"; exit 0; fi
exec "$exe" "$@"
