#!/usr/bin/env bash
# Hardware counters for the kernels of one bench run, one ncu pass per metric group so that a
# metric this ncu does not know costs only its group. Writes $OUT/ncu-<name>.txt (the table of
# scripts/ncu_summary.py) and prints it.
#   scripts/ncu-profile.sh NAME KERNEL_REGEX bench-arguments...
#   e.g. scripts/ncu-profile.sh matmul 'smemlab::matmul' --family matmul --size 2048
# KERNEL_REGEX matches demangled names ('smemlab::reduce|DeviceReduce' adds CUB's kernels).
# SMEMLAB names a built smemlab to use instead of building one.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
OUT=${OUT:-$smemlab_root/gpu-out}
mkdir -p "$OUT"
name=$1
regex=$2
shift 2
smemlab="${SMEMLAB:-$smemlab_build_dir/smemlab}"
[ -x "$smemlab" ] || smemlab_build >/dev/null || exit 1
work="$smemlab_build_dir/ncu-$name"
rm -rf "$work" && mkdir -p "$work"

groups=(
  "gpu__time_duration.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__thread_inst_executed_per_inst_executed.ratio,dram__throughput.avg.pct_of_peak_sustained_elapsed"
  "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_bytes.sum,dram__bytes_read.sum"
  "dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed"
  "sm__cycles_elapsed.avg.per_second,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,launch__occupancy_limit_registers"
  "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_misc_per_issue_active.ratio"
  "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
)
i=0
for metrics in "${groups[@]}"; do
  i=$((i + 1))
  ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$regex" \
    --metrics "$metrics" --csv "$smemlab" bench "$@" --reps 1 --warmup 0 --quiet --format csv \
    >"$work/group-$i.csv" 2>"$work/group-$i.err" || echo "ncu group $i failed: $(tail -2 "$work/group-$i.err")" >&2
done
python3 "$smemlab_root/scripts/ncu_summary.py" "$work"/group-*.csv | tee "$OUT/ncu-$name.txt"
