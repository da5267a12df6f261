#!/usr/bin/env python3
"""Pivots `ncu --csv --metrics ...` output into one row per kernel, one column per metric.

ncu_summary.py FILE.csv [FILE.csv ...], one file per metric group of the same program run, so
launch IDs agree across files. Where a kernel ran several times (the bench's checked and timed
runs, the small later passes of a multi-pass reduction), the launch with the longest duration
is shown. Kernel names are shortened to the template name and its arguments.
"""
import csv
import io
import re
import sys

SHORT = {
    "gpu__time_duration.sum": "time",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "fma%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "occup%",
    "smsp__thread_inst_executed_per_inst_executed.ratio": "thr/inst",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram%",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "ffma",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "shLdWave",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "shStWave",
    "smsp__sass_inst_executed_op_shared_ld.sum": "shLdInst",
    "smsp__sass_inst_executed_op_shared_st.sum": "shStInst",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shLdConf",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shStConf",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "gLdSect",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "gLdReq",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "gStSect",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "gStReq",
    "lts__t_bytes.sum": "L2bytes",
    "dram__bytes_read.sum": "dramRd",
    "dram__bytes_write.sum": "dramWr",
    "lts__t_sector_hit_rate.pct": "L2hit%",
    "lts__t_sectors_srcunit_tex_op_read.sum": "L2rdSect",
    "lts__t_sectors_srcunit_tex_op_write.sum": "L2wrSect",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2%",
    "sm__cycles_elapsed.avg.per_second": "clock",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%",
    "smsp__inst_executed.sum": "inst",
    "launch__registers_per_thread": "regs",
    "launch__block_size": "block",
    "launch__grid_size": "grid",
    "launch__shared_mem_per_block_dynamic": "dynSmem",
    "launch__shared_mem_per_block_static": "statSmem",
    "launch__occupancy_limit_registers": "blkLimRegs",
}


def short_kernel(name):
    for pattern in (r"(\w+_kernel(?:<[^()]*>)?)", r"(Device\w*Kernel)", r"(\w*gemm\w*)"):
        m = re.search(pattern, name)
        if m:
            return m.group(1)[:60]
    return name[:60]


def short_metric(metric):
    if metric in SHORT:
        return SHORT[metric]
    m = re.search(r"stalled_(\w+?)_per_issue", metric)
    return "stall_" + m.group(1) if m else metric


def main(paths):
    values = {}  # (kernel, launch id) -> {metric: value}
    columns = []
    for path in paths:
        text = open(path, errors="replace").read()
        start = text.find('"ID"')
        if start < 0:
            continue
        for row in csv.DictReader(io.StringIO(text[start:])):
            key = (short_kernel(row["Kernel Name"]), int(row["ID"]))
            metric = short_metric(row["Metric Name"])
            if metric not in columns:
                columns.append(metric)
            values.setdefault(key, {})[metric] = row["Metric Value"].replace(",", "")

    def duration(key):
        try:
            return float(values[key].get("time", "0"))
        except ValueError:
            return 0.0

    chosen = {}  # kernel -> launch id of its longest launch, in first-seen order
    for key in sorted(values, key=lambda k: k[1]):
        kernel = key[0]
        if kernel not in chosen or duration(key) > duration((kernel, chosen[kernel])):
            chosen[kernel] = key[1]
    width = max((len(k) for k in chosen), default=10)
    # Two spaces at least between columns, so that readers may split on runs of spaces.
    col_width = [max([14, len(c) + 2] + [len(values[(k, l)].get(c, "-")) + 2 for k, l in chosen.items()])
                 for c in columns]
    print(f"{'kernel':<{width}}" + "".join(f"{c:>{w}}" for c, w in zip(columns, col_width)))
    for kernel, launch in chosen.items():
        row = values[(kernel, launch)]
        print(f"{kernel:<{width}}" + "".join(f"{row.get(c, '-'):>{w}}" for c, w in zip(columns, col_width)))


if __name__ == "__main__":
    main(sys.argv[1:])
