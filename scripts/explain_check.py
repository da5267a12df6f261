#!/usr/bin/env python3
"""GPU test: `smemlab explain`'s predicted shared-memory wavefronts against Nsight Compute.

explain_check.py SMEMLAB_BINARY

For each modelled variant, profiles one bench run with ncu (loads' and stores' wavefronts of
every launch), takes the variant's kernel at its largest launch, and compares with the
prediction: loads within 5%, stores from 1% above to 16% below (the hardware counts extra
store wavefronts that the addresses do not explain; see tests/cpu/explain_test.cpp). Exits 77
(skipped) without a GPU or ncu, 1 on a mismatch.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

CASES = {  # family, size, element type: [(variant, kernel name as ncu demangles it, shortened)]
    ("matmul", "2048", "float"): [
        ("smem_tile16", "tiled_static_kernel<16>"),
        ("smem_tile32", "tiled_static_kernel<32>"),
        ("dyn_tile16_const", "tiled_dynamic_kernel<smemlab::matmul::detail::FixedTile<16>>"),
        ("dyn_tile16_runtime", "tiled_dynamic_kernel<smemlab::matmul::detail::RuntimeTile>"),
        ("conflict_tile16", "column_major_tile_kernel<0>"),
        ("conflict_tile16_padded", "column_major_tile_kernel<1>"),
        ("thread_tile_1d", "thread_tile_1d_kernel"),
        ("thread_tile_2d", "thread_tile_2d_kernel"),
        ("vectorized", "vectorized_tile_kernel<0, 1>"),  # ncu writes bool arguments as 0 and 1
        ("conflict_free", "vectorized_tile_kernel<1, 1>"),
        ("warp_tile", "tiled_gemm_kernel<TileConfig<128, 128, 8, 32, 64, 8, 8, 1, 2, 0>, 1>"),
        ("pipelined", "tiled_gemm_kernel<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2, 0>, 1>"),
    ],
    ("reduction", "2^24", "float"): [
        ("shared_static", "shared_static_kernel<float>"),
        ("shared_dynamic", "shared_dynamic_kernel<float>"),
        ("interleaved_divergent", "interleaved_divergent_kernel<float>"),
        ("interleaved_strided", "interleaved_strided_kernel<float>"),
        ("sequential", "sequential_kernel<float>"),
        ("first_add_on_load", "first_add_kernel<float>"),
        ("warp_shuffle", "warp_shuffle_kernel<float>"),
    ],
    ("transpose", "8192", "float"): [
        ("smem_tile", "tile_transpose_kernel<smemlab::transpose::detail::PlainLayout, float>"),
        ("padded", "tile_transpose_kernel<smemlab::transpose::detail::PaddedLayout, float>"),
        ("swizzled", "tile_transpose_kernel<smemlab::transpose::detail::SwizzledLayout, float>"),
        ("tuned", "tuned_vec_kernel"),
    ],
    ("transpose", "8192", "double"): [
        ("tuned", "tuned_vec_kernel"),
    ],
}
METRICS = {"ld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
           "st": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}


def kernel_key(name):
    """The kernel's name and template arguments without namespaces (ncu shortens them)."""
    m = re.search(r"(\w+_kernel(?:<[^()]*>)?)(?:\(|$)", name)
    return re.sub(r"(?:\w+::)+", "", m.group(1) if m else name)


def measure(binary, family, size, dtype, variants):
    cmd = ["ncu", "--clock-control", "none", "--kernel-name-base", "demangled", "--kernel-name",
           "regex:smemlab::", "--metrics", ",".join(METRICS.values()), "--csv", binary, "bench",
           "--family", family, "--variant", ",".join(variants), "--size", size, "--type", dtype, "--reps", "1",
           "--warmup", "0", "--quiet", "--format", "csv"]
    text = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    launches = {}
    for row in csv.DictReader(io.StringIO(text[text.find('"ID"'):])):
        launches.setdefault((kernel_key(row["Kernel Name"]), row["ID"]), {})[row["Metric Name"]] = float(
            row["Metric Value"].replace(",", ""))
    largest = {}
    for (kernel, _), m in launches.items():
        total = m.get(METRICS["ld"], 0) + m.get(METRICS["st"], 0)
        if kernel not in largest or total > largest[kernel][0]:
            largest[kernel] = (total, m.get(METRICS["ld"], 0), m.get(METRICS["st"], 0))
    return largest


def main(binary):
    if shutil.which("ncu") is None or subprocess.run(["nvidia-smi"], capture_output=True).returncode != 0:
        print("explain_check: no GPU or no ncu: skipped")
        return 77
    failures = 0
    print(f"{'variant':<34}{'ld predicted':>14}{'ld measured':>14}{'st predicted':>14}{'st measured':>14}")
    for (family, size, dtype), cases in CASES.items():
        measured = measure(binary, family, size, dtype, [v for v, _ in cases])
        for variant, kernel in cases:
            doc = json.loads(subprocess.run([binary, "explain", f"{family}/{variant}", "--size", size, "--type",
                                             dtype, "--format", "json"], capture_output=True, text=True, check=True).stdout)
            pred = doc["model"]["predicted"]
            kernel = kernel_key(kernel)
            if kernel not in measured:
                print(f"{family}/{variant}: kernel {kernel} not profiled; got {sorted(measured)}")
                failures += 1
                continue
            _, ld, st = measured[kernel]
            ok = abs(pred["ld_wavefronts"] / ld - 1) <= 0.05 and st / 1.16 <= pred["st_wavefronts"] <= 1.01 * st
            failures += not ok
            print(f"{family + '/' + variant + ('' if dtype == 'float' else ' ' + dtype):<34}{pred['ld_wavefronts']:>14}{ld:>14.0f}{pred['st_wavefronts']:>14}"
                  f"{st:>14.0f}  {'ok' if ok else 'MISMATCH'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
