#!/usr/bin/env bash
# A full disk (a small tmpfs, filled) and a file-size limit (ulimit -f) while writing the result JSON, the
# trace, the HTML report, a comm JSON and a .mgrec record file: a one-line error naming the file, exit status 1, no temporary
# left beside it, and the previous file of that name unchanged.
source "$(dirname "$0")/lib.bash"
train=(--device cpu --model tiny --batch-size 4 --steps 3 --warmup 1 --no-progress)

# check_failed_write NAME FILE PREVIOUS: the last command failed as described above for FILE.
check_failed_write() {
  local name=$1 file=$2 previous=$3
  [[ $(wc -l <"$TMP/err") -eq 1 ]] || { cat "$TMP/err"; fail "$name: expected a one-line error"; }
  grep -q "cannot write $file: .*\(No space left on device\|File too large\)" "$TMP/err" ||
    { cat "$TMP/err"; fail "$name: error does not name $file and the cause"; }
  [[ $(cat "$file") == "$previous" ]] || fail "$name: the previous $file was changed"
  local left
  left=$(find "$(dirname "$file")" -name '.*.tmp.*' -o -name '*.tmp-*')
  [[ -z $left ]] || fail "$name: temporary files left: $left"
  echo "$name: $(cat "$TMP/err")"
}

"$MGBENCH" prepare-data --generate-test-images "$TMP/imgs" --count 40 --size 64 --classes 2 >/dev/null ||
  fail "could not generate test images"

# 1. A full tmpfs (needs mount permission: root, or skip this part).
mnt="$TMP/mnt"
mkdir -p "$mnt"
if mount -t tmpfs -o size=256k tmpfs "$mnt" 2>/dev/null; then
  trap 'umount "$mnt" 2>/dev/null; rm -rf "$TMP"' EXIT
  for f in r.json t.json r.html c.json out.mgrec; do echo "previous $f" >"$mnt/$f"; done
  # Fill it: dd stops at the first failed write.
  dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null
  expect_status 1 "$MGBENCH" "${train[@]}" --json "$mnt/r.json"
  check_failed_write "full disk, --json" "$mnt/r.json" "previous r.json"
  expect_status 1 "$MGBENCH" "${train[@]}" --trace "$mnt/t.json"
  check_failed_write "full disk, --trace" "$mnt/t.json" "previous t.json"
  expect_status 1 "$MGBENCH" "${train[@]}" --html "$mnt/r.html"
  check_failed_write "full disk, --html" "$mnt/r.html" "previous r.html"
  expect_status 1 "$MGBENCH" comm --device cpu -b 1K -e 1K --iters 2 --warmup 1 --json "$mnt/c.json"
  check_failed_write "full disk, comm --json" "$mnt/c.json" "previous c.json"
  expect_status 1 "$MGBENCH" prepare-data "$TMP/imgs" "$mnt/out.mgrec" --threads 1
  check_failed_write "full disk, prepare-data" "$mnt/out.mgrec" "previous out.mgrec"
  # And with room again, the same commands succeed (the failures were the disk's).
  rm -f "$mnt/filler"
  expect_status 0 "$MGBENCH" "${train[@]}" --json "$mnt/r.json"
  json_check "$mnt/r.json" '"runs" in d' || fail "r.json not written once the disk had room"
  umount "$mnt"
  trap 'rm -rf "$TMP"' EXIT
else
  echo "note: cannot mount a tmpfs here (not root?): the full-disk part was not run"
  tmpfs_skipped=1
fi

# 2. A file-size limit (works unprivileged): SIGXFSZ would kill the process mid-write by default; mgbench
# ignores it and reports EFBIG. ulimit -f counts 1024-byte blocks in bash; the result JSON is larger.
for f in r.json out.mgrec; do echo "previous $f" >"$TMP/$f"; done
expect_status 1 bash -c 'ulimit -f 4; exec "$@"' _ "$MGBENCH" "${train[@]}" --json "$TMP/r.json"
check_failed_write "ulimit -f, --json" "$TMP/r.json" "previous r.json"
expect_status 1 bash -c 'ulimit -f 16; exec "$@"' _ "$MGBENCH" prepare-data "$TMP/imgs" "$TMP/out.mgrec" --threads 1
check_failed_write "ulimit -f, prepare-data" "$TMP/out.mgrec" "previous out.mgrec"

[[ -z ${tmpfs_skipped:-} ]] || exit 77
echo "full disk: ok"
