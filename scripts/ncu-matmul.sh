#!/usr/bin/env bash
# Hardware counters for every matmul kernel at one size (default 2048), one ncu pass per metric
# group so that a metric this ncu does not know costs only its group. Writes $OUT/ncu-*.csv
# and prints a table (scripts/ncu_summary.py).   scripts/ncu-matmul.sh [SIZE]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
size=${1:-2048}
smemlab="$smemlab_build_dir/smemlab"
[ -x "$smemlab" ] || smemlab_build >/dev/null || exit 1

groups=(
  "gpu__time_duration.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes_read.sum"
  "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
)
i=0
for metrics in "${groups[@]}"; do
  i=$((i + 1))
  ncu --clock-control none --kernel-name regex:'naive|tile|gemm' --metrics "$metrics" --csv \
    "$smemlab" bench --family matmul --size "$size" --reps 1 --warmup 0 --quiet --format csv \
    >"$OUT/ncu-$i.csv" 2>"$OUT/ncu-$i.err" || echo "ncu group $i failed: $(tail -2 "$OUT/ncu-$i.err")" >&2
done
python3 "$smemlab_root/scripts/ncu_summary.py" "$OUT"/ncu-*.csv
