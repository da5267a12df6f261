#!/usr/bin/env bash
# The autotuned matmul variant's sweep: times every tile configuration (x raster group, and
# x split-K slices for the small class) at the SGEMM target shapes against cuBLAS in the same
# run, then picks the best per shape class (scripts/tune_table.py). Writes to $OUT (default
# gpu-out/): tiles-small.json and tiles-large.json (every row) and tuning.json (the choices,
# the file the library's table in src/matmul/tuning_table.cpp is checked against).
#   scripts/tune-matmul.sh [--reps N]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
smemlab_build >/dev/null
smemlab="$smemlab_build_dir/smemlab"
reps=11
[ "${1:-}" = --reps ] && reps=$2

# The sweep's candidates, CONFIG/gGROUP/kSLICES; split-K only where C has few tiles.
every=$("$smemlab" list --family matmul-tiles | awk '$1 != "matmul-tiles/cublas" {print $1}')
no_split=$(grep '/k1$' <<<"$every" | paste -sd, -)
every=$(paste -sd, - <<<"$every")

"$smemlab" bench --family matmul-tiles --variant "$every" --size 1024 --reps "$reps" --warmup 2 \
  --format json --output "$OUT/tiles-small.json"
"$smemlab" bench --family matmul-tiles --variant "$no_split" \
  --size 2048,4095,4096,4097,8192,8192x1024x4096,1024x8192x4096 --reps "$reps" --warmup 2 \
  --format json --output "$OUT/tiles-large.json"
python3 "$smemlab_root/scripts/tune_table.py" "$OUT/tiles-small.json" "$OUT/tiles-large.json" \
  --output "$OUT/tuning.json"
