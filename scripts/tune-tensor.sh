#!/usr/bin/env bash
# The tensor-core chooser's sweep: every kernel the default call (tensor-matmul/auto) can choose,
# K whole and in ranges, at the shapes its model is fitted to (tensor-matmul-tiles' full sizes),
# in bf16 and tf32, then the fit (scripts/tune_tensor.py). Writes to $OUT (default gpu-out/):
# tensor-tiles.json (every row), tensor-tuning.json (the fit) and tuning_table.cpp (the rates
# as src/tensor_matmul/tuning_table.cpp holds them). SMEMLAB names a built smemlab to use.
#   scripts/tune-tensor.sh [--reps N]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
smemlab=$(smemlab_binary)
reps=11
[ "${1:-}" = --reps ] && reps=$2
"$smemlab" bench --family tensor-matmul-tiles --full --type bf16,tf32 --reps "$reps" --warmup 2 --quiet \
  --format json --output "$OUT/tensor-tiles.json"
python3 "$smemlab_root/scripts/tune_tensor.py" fit "$OUT/tensor-tiles.json" --json "$OUT/tensor-tuning.json" \
  --table "$OUT/tuning_table.cpp"
