#!/usr/bin/env bash
# The whole GPU check in one call: build, GPU and CPU tests, compute-sanitizer on small odd
# shapes of every family, the SASS of the kernels, the benchmark with its plots. What comes back
# in $OUT (default gpu-out/): logs.tar.gz (build, tests, sanitizer, bench progress, SASS),
# summary.txt, bench.json and one PNG per family. A short table is printed last.
#   scripts/gpu-check.sh [bench arguments...]   (default: --full, the whole sweep)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
logs="$smemlab_build_dir/gpu-check-logs"
status=0
step() { echo "== $*" | tee -a "$OUT/summary.txt" >&2; }
note() { tee -a "$OUT/summary.txt" >&2; }
pack_logs() { tar -czf "$OUT/logs.tar.gz" -C "$logs" . 2>/dev/null; }

: >"$OUT/summary.txt"
step "device"
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1 | note

step "build"
mkdir -p "$smemlab_build_dir"
rm -rf "$logs" && mkdir -p "$logs"
if ! smemlab_build -DSMEMLAB_PTXAS_VERBOSE=ON >"$logs/build.log" 2>&1; then
  tail -40 "$logs/build.log"
  pack_logs
  exit 1
fi
smemlab="$smemlab_build_dir/smemlab"
"$smemlab" info 2>&1 | note

step "tests"
if ! ctest --test-dir "$smemlab_build_dir" --output-on-failure -j 8 >"$logs/tests.log" 2>&1; then
  status=1
  grep -E -A12 "\[  FAILED  \]|Failure|CMake Error" "$logs/tests.log" | head -60 >&2
fi
grep -E "tests passed|tests failed|\(Failed\)|Not Run|Timeout" "$logs/tests.log" | tail -15 | note
grep -E "(cpu|gpu) +=" "$logs/tests.log" | note

step "compute-sanitizer on every variant at small odd sizes"
run_sanitizer() {  # label, tool, then the program and its arguments
  local label=$1 tool=$2
  shift 2
  echo "### $tool $label" >>"$logs/sanitizer.log"
  if compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >>"$logs/sanitizer.log" 2>&1; then
    echo "$tool $label: clean" | note
  else
    status=1
    echo "$tool $label: FAILED" | note
  fi
}
sanitize() {  # tool, then bench arguments
  local tool=$1
  shift
  run_sanitizer "$*" "$tool" "$smemlab" bench "$@" --reps 1 --warmup 0 --quiet --format csv
}
sanitize_tests() {  # tool, then a gtest filter
  run_sanitizer "tests $2" "$1" "$smemlab_build_dir/tests/smemlab_gpu_tests" --gtest_filter="$2"
}
# Every tile configuration of the autotuned variant, aligned and not, with split-K in one wave
# and in several, and the last-wave split; the tests add padded rows and beta != 0.
tiles=$("$smemlab" list --family matmul-tiles --names |
  awk '$1 ~ /\/g8\/(k3|k64|lw)$/ {print $1}' | paste -sd, -)
for tool in memcheck racecheck synccheck; do
  sanitize "$tool" --family matmul --size 33x31x65,7x13x5,260x388x100
  sanitize "$tool" --family matmul-tiles --variant "$tiles" --size 131x67x1025,260x388x1000
  sanitize_tests "$tool" '*MatmulTiles.Match*'
  sanitize "$tool" --family reduction --type float,double --size 33,100003
  sanitize "$tool" --family scan --type int32,float --size 33,8193,300007  # 300007: three levels of 01's tiles
  sanitize "$tool" --family histogram --type uint8,float --size 33,100003
  sanitize "$tool" --family transpose --type float,double --size 33x31,97x130,200x132  # 200x132: 16-byte paths, edge tiles
  # 16x300x3000: step 13 adds 8 ranges of K in a cluster.
  sanitize "$tool" --family tensor-matmul --type bf16,tf32 --size 7x13x5,131x67x65,16x300x3000
  sanitize_tests "$tool" 'MatmulWorkspace.*:Reduce.SinglePass*:*TensorMatmulKernel*skinny*'
  # Every attention step on a causal tile edge, a decoding step (split key ranges), GQA, and
  # step 07 with more Q tiles than SMs (its blocks take several).
  sanitize_tests "$tool" '*AttentionVariant*_seven_causal_bf16:*AttentionVariant*_decode_bf16:*AttentionVariant*_grouped_query_half:*AttentionVariant*persistent_more_tiles_than_sms_bf16:*AttentionVariant*persistent_many_tiles_some_without_keys_bf16:*AttentionVariant*persistent_many_tiles_head_dim_64_bf16:*AttentionVariant*persistent_many_tiles_head_dim_64_unmasked_bf16:*AttentionVariant*persistent_many_tiles_head_dim_64_causal_long_bf16:*AttentionVariant*persistent_many_short_tiles_head_dim_64_unmasked_bf16:*AttentionVariant*persistent_many_tiles_head_dim_256_bf16'
done

step "SASS instruction counts"
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$smemlab" >"$logs/sass.txt" 2>&1
  python3 "$smemlab_root/scripts/sass_summary.py" "$logs/sass.txt" | note
fi

step "benchmark"
bench_args=("$@")
[ $# -gt 0 ] || bench_args=(--full)
if ! "$smemlab" bench "${bench_args[@]}" --format json --output "$OUT/bench.json" 2>"$logs/bench-progress.log"; then
  status=1
  tail -5 "$logs/bench-progress.log" >&2
fi
pack_logs
if [ -f "$OUT/bench.json" ]; then
  for family in $(python3 -c "import json,sys; print(' '.join(sorted({r['family'] for r in json.load(open(sys.argv[1]))['rows']})))" "$OUT/bench.json"); do
    python3 "$smemlab_root/scripts/plot_bench.py" "$OUT/bench.json" --family "$family" --plot "$OUT/$family.png" --summary | note
  done
fi
echo "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)" | note
exit $status
