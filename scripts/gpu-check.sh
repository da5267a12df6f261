#!/usr/bin/env bash
# The whole GPU check in one call: build, GPU and CPU tests, compute-sanitizer on small odd
# shapes, the SASS of the kernels, the benchmark with its plot. Full logs go to $OUT (default
# gpu-out/); a short table is printed last.
#   scripts/gpu-check.sh [bench arguments...]   (default: the bench's defaults)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
status=0
step() { echo "== $*" >&2; }

step "device"
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv >"$OUT/device.txt" 2>&1
cat "$OUT/device.txt" >&2

step "build"
if ! smemlab_build -DSMEMLAB_PTXAS_VERBOSE=ON >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  exit 1
fi
smemlab="$smemlab_build_dir/smemlab"
"$smemlab" info | tee -a "$OUT/device.txt" >&2

step "tests"
if ! ctest --test-dir "$smemlab_build_dir" --output-on-failure -j 8 >"$OUT/tests.log" 2>&1; then
  status=1
  grep -E -A12 "\[  FAILED  \]|Failure|CMake Error" "$OUT/tests.log" | head -60 >&2
fi
grep -E "tests passed|tests failed|\(Failed\)|Not Run|Timeout" "$OUT/tests.log" | tail -15 >&2
grep -E "(cpu|gpu) +=" "$OUT/tests.log" >&2

step "compute-sanitizer (memcheck, racecheck, synccheck) on every variant at 33x31x65 and 7x13x5"
: >"$OUT/sanitizer.log"
for tool in memcheck racecheck synccheck; do
  if ! compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$smemlab" bench --size 33x31x65,7x13x5 --reps 1 --warmup 0 --quiet --format csv \
      >>"$OUT/sanitizer.log" 2>&1; then
    status=1
    echo "$tool: FAILED" >&2
  else
    echo "$tool: clean" >&2
  fi
done

step "SASS of the matmul kernels"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$smemlab" >"$smemlab_build_dir/sass.txt" 2>&1
  python3 "$smemlab_root/scripts/sass_summary.py" "$smemlab_build_dir/sass.txt" >"$OUT/sass-summary.txt" 2>&1
  cat "$OUT/sass-summary.txt" >&2
fi

step "benchmark"
bench_args=("$@")
if ! "$smemlab" bench "${bench_args[@]}" --format json --output "$OUT/bench.json" 2>"$OUT/bench-progress.log"; then
  status=1
  tail -5 "$OUT/bench-progress.log" >&2
fi
if [ -f "$OUT/bench.json" ]; then
  for family in $(python3 -c "import json,sys; print(' '.join(sorted({r['family'] for r in json.load(open(sys.argv[1]))['rows']})))" "$OUT/bench.json"); do
    python3 "$smemlab_root/scripts/plot_bench.py" "$OUT/bench.json" --family "$family" --plot "$OUT/$family.png" --summary
  done
fi
echo "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
