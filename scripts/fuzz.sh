#!/usr/bin/env bash
# fuzz.sh PACKAGE TARGET TIME: runs one Go fuzz target for TIME.
#
# Go 1.26's fuzz coordinator can end a run that found nothing with a bare
# "context deadline exceeded" when -fuzztime expires while a worker is
# mid-call on a loaded machine (golang/go#75804, fixed in Go 1.27). That
# one signature, with no reproducer written under testdata/fuzz/TARGET,
# is retried once; any other failure, or any new reproducer, fails.
set -uo pipefail
pkg=$1 target=$2 time=$3
corpus="$pkg/testdata/fuzz/$target"
count() { find "$corpus" -type f 2>/dev/null | wc -l; }
for try in 1 2; do
  before=$(count)
  out=$(mktemp)
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$time" "$pkg" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  after=$(count)
  if [ "$rc" -eq 0 ]; then rm -f "$out"; exit 0; fi
  if [ "$after" -eq "$before" ] && grep -q '^    context deadline exceeded$' "$out" \
     && [ "$(grep -c -- '^--- FAIL' "$out")" -eq 1 ] && ! grep -q 'Failing input written\|panic:' "$out"; then
    echo "fuzz.sh: $target ended with the Go 1.26 coordinator's bare deadline (golang/go#75804) and wrote no reproducer; try $try of 2"
    rm -f "$out"
    continue
  fi
  rm -f "$out"
  echo "fuzz.sh: $target failed"
  exit 1
done
echo "fuzz.sh: $target hit the coordinator deadline twice in a row"
exit 1
