#!/usr/bin/env bash
# Ctrl-C and `kill` during `mgbench prepare-data`: the packing threads stop within the limit, the status is
# 128+signal, the temporary record file is removed and an existing OUT.mgrec is left as it was.
source "$(dirname "$0")/interrupt.bash"
"$MGBENCH" prepare-data --generate-test-images "$IT/imgs" --count 3000 --size 96 --classes 4 >/dev/null ||
  fail "could not generate test images"
echo "previous" >"$IT/out.mgrec"
for sig in INT TERM; do
  start_run pack$sig "$MGBENCH" prepare-data "$IT/imgs" "$IT/out.mgrec" --threads 2
  # Signal as soon as packing has begun (its temporary record file exists): on an idle machine all 3000 images
  # pack in a few tenths of a second, so a fixed sleep would race the end of the job.
  deadline=$(( $(date +%s) + 300 ))
  until compgen -G "$IT/out.mgrec.tmp-*" >/dev/null; do
    kill -0 "$RUN_PID" 2>/dev/null || break
    (( $(date +%s) < deadline )) || fail "pack$sig: no temporary record file within 300 s"
    sleep 0.005
  done
  want=130; [[ $sig == TERM ]] && want=143
  if ! kill -0 "$RUN_PID" 2>/dev/null; then
    cat "$IT/pack$sig.out" "$IT/pack$sig.err"
    fail "pack$sig: packing ended before the signal (too few images to interrupt)"
  fi
  stop_run "$RUN_PID" "$sig" "$want" "pack$sig"
  [[ $(cat "$IT/out.mgrec") == previous ]] || fail "pack$sig: the previous out.mgrec was changed"
  no_temporaries "$IT"
done
echo "interrupt prepare-data: ok"
