#!/usr/bin/env python3
"""Fits the tensor-core chooser's model (src/tensor_matmul/16_auto.cpp) to a tensor-matmul-tiles
sweep, and writes its rates as src/tensor_matmul/tuning_table.cpp reads them.

  tune_tensor.py fit SWEEP.json --json TUNING.json --table tuning_table.cpp

The model of one choice (a kernel, K in R ranges) on an m x n x k product:
  items = tiles x R; slots = blocks per SM x SMs; rounds = ceil(items / slots)
  a round = item_ns + the K-loop + the epilogue, where
    the K-loop = the longer of: steps per range x BM x BN x (128 bytes of K) / (rate / blocks per
                 SM), and the operands' tiles, steps x (BM + BN) x 128 bytes for each of the
                 min(items, slots) blocks streaming at once, at L2 speed
                 (B's share halved where a cluster's two blocks share one copy of it: TMA multicast;
                 for the Hopper kernels that read by TMA boxes, each operand's share times the
                 128-byte lines a box row touches, lines_per_box_row: 1 where rows start on lines)
    the epilogue = min(items, slots) tiles of BM x BN floats stored at DRAM speed
  compute = rounds x a round; memory = A and B in the input type read at the kernel's fraction
  (stream) of the DRAM's speed
  time = launch_ns + max(compute, memory) + extras (split-K: a second launch reading R partial
         sums and writing C, (R + 1) x M x N floats at partial_bytes_per_ns, except for the
         kernels whose clusters add the ranges on chip; tf32 on wgmma, except the swapped
         tiles: a launch that transposes B, K x N floats read and written at DRAM speed; unaligned
         operands, except for the in-place kernels: a launch copying them, not fitted)
Fitted here: per kernel and type class its rate and item_ns (a grid search over its whole-K
rows: the aligned shapes' for the kernels that copy unaligned operands first, the unaligned
shapes' for the in-place kernels, which run only there; the kernel keeps the mean of its two
classes' item_ns; the swapped tiles run tf32 only, their two-byte rate 0), launch_ns and l2_bytes_per_ns (a
scan minimising the log error of the rows the rates are fitted to), dram_bytes_per_ns from A, B and C over the
fastest time at the memory-bound shapes (m or n of 16; C is 0.4% of those bytes there), each
kernel's stream from its own fastest time there, and partial_bytes_per_ns (a scan over the
split rows). The JSON keeps every swept time and the model's prediction of it.
The sweep's operands are dense and row-major, so the model's terms for operands stored
transposed (which kernels read them as stored, the copies and repacks, the in-place tiles'
reading speed of them) live in 16_auto.cpp only.
"""
import argparse
import json
import math
import statistics
import sys

# Must match kKernels in src/tensor_matmul/16_auto.cpp:
# name -> (bm, bn, blocks per SM, hopper, splits K, reads unaligned rows in place, thin: divides
# K itself (thin_ranges) and adds the ranges' sums in a cluster, swapped: tf32 only, reads B as
# stored, CUDA cores: reads any operands in place, K in steps of 16 elements, blocks sharing one
# copy of B's tile).
KERNELS = {
    "mma128x256": (128, 256, 1, False, False, False, False, False, False, 1),
    "mma128x128": (128, 128, 1, False, False, False, False, False, False, 1),
    "mma64x64": (64, 64, 2, False, False, False, False, False, False, 1),
    "inplace128x128": (128, 128, 1, False, False, True, False, False, False, 1),
    "inplace64x64": (64, 64, 2, False, False, True, False, False, False, 1),
    "wgmma128x256": (128, 256, 1, True, True, False, False, False, False, 1),
    "wgmma128x128": (128, 128, 1, True, True, False, False, False, False, 1),
    "wgmma64x128": (64, 128, 1, True, True, False, False, False, False, 1),
    "wgmma64x64": (64, 64, 1, True, True, False, False, False, False, 1),
    "clusters128x256": (128, 256, 1, True, False, False, False, False, False, 2),
    "skinny16x128": (16, 128, 3, True, False, False, True, False, False, 1),
    "skinny128x16": (128, 16, 3, True, False, False, True, False, False, 1),
    "swapped256x128": (256, 128, 1, True, True, False, False, True, False, 1),
    "swapped128x128": (128, 128, 1, True, True, False, False, True, False, 1),
    "swapped128x64": (128, 64, 1, True, True, False, False, True, False, 1),
    "smallk32x256": (32, 256, 3, False, False, False, False, False, True, 1),
}
# The memory-bound shapes of the sweep: m or n of 16.
SKINNY = ("16x8192x8192", "8192x16x8192")
ELEM = {"bf16": 2, "half": 2, "tf32": 4}


def mnk(size):
    parts = [int(p) for p in size.split("x")]
    return parts * 3 if len(parts) == 1 else parts


def cdiv(a, b):
    return -(-a // b)


def ranges_of(k, k_step, splits):
    steps = cdiv(k, k_step)
    per = cdiv(steps, max(splits, 1))
    return cdiv(steps, per), per


def thin_ranges(wide, m, n, k, k_step, sms):
    """As thin_tile_ranges in src/tensor_matmul/13_skinny.cu."""
    tiles = cdiv(m, 16) * cdiv(n, 128) if wide else cdiv(m, 128) * cdiv(n, 16)
    slots = sms if wide else 2 * sms
    if tiles * 2 > slots:
        return 1
    return max(1, min(slots // tiles, cdiv(k, k_step) // 4, 8))


def lines_per_box_row(pitch, base, row):
    """As lines_per_box_row in src/tensor_matmul/16_auto.cpp: the mean 128-byte lines a box row
    touches (at most 128 of a row's `row` bytes), its rows `pitch` bytes apart from `base` bytes
    into a line."""
    cycle = 128 // math.gcd(pitch % 128 or 128, 128)
    straddling = sum(1 for r in range(cycle) if (base + r * pitch) % 128 + min(row, 128) > 128)
    return 1 + straddling / cycle


def geometry(kernel, splits, size, dtype, sms):
    bm, bn, bps = KERNELS[kernel][:3]
    m, n, k = mnk(size)
    elem = ELEM[dtype]
    aligned = k % (16 // elem) == 0 and n % (16 // elem) == 0
    boxes = KERNELS[kernel][3] and not KERNELS[kernel][6]  # the Hopper tiles but 13's (mma.sync)
    # Dense operands on lines; copies (unaligned rows, tf32's B transposed but for 14's) too.
    a_lines = lines_per_box_row(k * elem, 0, k * elem) if boxes and aligned else 1
    b_as_stored = boxes and aligned and (dtype != "tf32" or KERNELS[kernel][7])
    b_lines = lines_per_box_row(n * elem, 0, n * elem) if b_as_stored else 1
    k_step = 16 if KERNELS[kernel][8] else 128 // ELEM[dtype]
    if KERNELS[kernel][6]:
        splits = thin_ranges(bm < bn, m, n, k, k_step, sms)
    count, per = ranges_of(k, k_step, splits)
    if KERNELS[kernel][8]:  # the CUDA-core loop stops at K's end inside its last chunk
        per = k / k_step
    items = cdiv(m, bm) * cdiv(n, bn) * count
    active = min(items, bps * sms)
    return {"rounds": cdiv(items, bps * sms), "macs": per * bm * bn * k_step * bps, "ranges": count,
            "mn": m * n, "bytes": ELEM[dtype] * (m * k + k * n), "kn": k * n,
            "streamed": per * (bm * a_lines + bn / KERNELS[kernel][9] * b_lines) * k_step * elem * active,
            "stored": 4 * bm * bn * active,
            "mk": m * k, "aligned": aligned}


def extras(kernel, dtype, g, p):
    in_place = KERNELS[kernel][5]
    # The wgmma kernels (every Hopper kernel but the skinny ones, which are mma.sync, and the
    # swapped ones, which read B as stored) read B's transpose in tf32.
    transposes_b = KERNELS[kernel][3] and not KERNELS[kernel][6] and not KERNELS[kernel][7] and dtype == "tf32"
    ns = p["launch_ns"]
    if not g["aligned"] and not in_place and not KERNELS[kernel][8]:  # not fitted; as 16_auto.cpp counts it
        copied = g["mk"] + (0 if transposes_b else g["kn"])
        ns += p["launch_ns"] + 2 * ELEM[dtype] * copied / p["dram_bytes_per_ns"]
    if g["ranges"] > 1 and not KERNELS[kernel][6]:
        ns += p["launch_ns"] + (g["ranges"] + 1) * 4 * g["mn"] / p["partial_bytes_per_ns"]
    if transposes_b:
        ns += p["launch_ns"] + 8 * g["kn"] / p["dram_bytes_per_ns"]
    return ns


def predict_with(g, kernel, dtype, rate, item_ns, p, stream=1.0):
    step = max(g["macs"] / rate, g["streamed"] / p["l2_bytes_per_ns"])
    compute = g["rounds"] * (item_ns + step + g["stored"] / p["dram_bytes_per_ns"])
    return extras(kernel, dtype, g, p) + max(compute, g["bytes"] / (p["dram_bytes_per_ns"] * stream))


def predict(kernel, splits, size, dtype, p, sms):
    r = p["rates"][kernel]
    return predict_with(geometry(kernel, splits, size, dtype, sms), kernel, dtype,
                        r["tf32" if dtype == "tf32" else "two_byte"], r["item_ns"], p, r["stream"])


RATES = [50.0 * (120.0 ** (i / 99)) for i in range(100)]  # 50 to 6000 multiply-adds per ns per SM
ITEM_NS = [100.0 * i for i in range(21)]                 # 0 to 2000 ns


def fit(rows, sms):
    times = {}  # (kernel, splits, size, dtype) -> ns
    for r in rows:
        if r["reference"] or not r["verified"]:
            continue
        kernel, ranges = r["variant"].split("/")
        times[(kernel, int(ranges[1:]), r["size"], r["dtype"])] = r["median_ms"] * 1e6
    dtypes = sorted({key[3] for key in times})
    p = {"launch_ns": 2000.0, "dram_bytes_per_ns": 3000.0, "l2_bytes_per_ns": 10000.0,
         "partial_bytes_per_ns": 2000.0, "rates": {}}

    def fit_rates():
        """Per kernel and type class, the rate and item time that predict its whole-K rows best."""
        total = 0.0
        for kernel in KERNELS:
            rate = {}
            for cls, members in (("two_byte", ["bf16", "half"]), ("tf32", ["tf32"])):
                keys = [key for key in times if key[0] == kernel and key[1] == 1 and key[3] in members
                        and (KERNELS[kernel][5] or KERNELS[kernel][8]
                             or geometry(kernel, 1, key[2], key[3], sms)["aligned"])]
                if not keys:
                    continue
                cases = [(geometry(kernel, 1, key[2], key[3], sms), key[3], times[key]) for key in keys]
                stream = streams.get(kernel, 1.0)
                best = None
                for r in RATES:
                    for item in ITEM_NS:
                        e = sum(math.log(predict_with(g, kernel, dt, r, item, p, stream) / t) ** 2
                                for g, dt, t in cases)
                        if best is None or e < best[0]:
                            best = (e, r, item)
                total += best[0]
                rate[cls] = best[1]
                rate.setdefault("item_ns", []).append(best[2])
            if KERNELS[kernel][7] and "tf32" in rate:
                rate["two_byte"] = 0.0
            if "two_byte" in rate:
                rate.setdefault("tf32", rate["two_byte"] / 2)
                rate["item_ns"] = statistics.mean(rate["item_ns"])
                rate["stream"] = streams.get(kernel, 1.0)
                p["rates"][kernel] = rate
        return total

    def log_error(keys):
        errors = [math.log(predict(k, s, size, d, p, sms) / times[(k, s, size, d)]) for (k, s, size, d) in keys]
        return math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else 0.0

    streams = {}  # kernel -> the fraction of dram_bytes_per_ns it reads at where memory-bound
    # The memory-bound shapes' rows of one launch (no partial sums, copies or transposes beside
    # the kernel, whose costs the model only estimates).
    skinny = [key for key in times
              if key[2] in SKINNY and extras(key[0], key[3], geometry(*key, sms), p) == p["launch_ns"]]

    def bytes_per_ns(key):  # A and B over the time, past the launch
        return geometry(*key, sms)["bytes"] / max(times[key] - p["launch_ns"], 1.0)

    def fit_dram():  # the fastest reader's speed at the memory-bound shapes
        if skinny:
            p["dram_bytes_per_ns"] = max(bytes_per_ns(key) for key in skinny)

    fit_dram()
    best = None
    for launch in (1000.0, 2000.0, 3000.0, 4000.0, 5000.0, 6000.0, 8000.0):
        for l2 in range(4000, 20001, 1000):
            p["launch_ns"], p["l2_bytes_per_ns"] = launch, float(l2)
            error = fit_rates()
            if best is None or error < best[0]:
                best = (error, launch, float(l2))
    p["launch_ns"], p["l2_bytes_per_ns"] = best[1], best[2]
    fit_dram()  # with the fitted launch
    # Each kernel's reading speed where the bytes bound the time: its fastest choice at the
    # memory-bound shapes, past the launches and copies the model counts beside the kernel.
    for kernel in KERNELS:
        keys = [key for key in skinny if key[0] == kernel]
        if keys:
            fastest = max(bytes_per_ns(key) for key in keys)
            streams[kernel] = round(min(1.0, fastest / p["dram_bytes_per_ns"]), 3)
    fit_rates()
    split_rows = [key for key in times if key[1] > 1 and key[0] in p["rates"] and not KERNELS[key[0]][6]]
    if split_rows:  # the partial sums' speed that predicts the split rows best
        p["partial_bytes_per_ns"] = float(min(range(250, 20001, 250),
                                              key=lambda b: (p.__setitem__("partial_bytes_per_ns", float(b)),
                                                             log_error(split_rows))[1]))
    all_keys = [key for key in times if key[0] in p["rates"]]
    p["rms_log_error"] = round(log_error(all_keys), 4)
    # The model's choice against the fastest measured, per swept shape and type.
    ratios = []
    for size in sorted({key[2] for key in times}):
        for dtype in dtypes:
            # As rank_kernels: the 128 x 16 thin tiles only where n <= 16.
            keys = [key for key in all_keys if key[2] == size and key[3] == dtype
                    and not (KERNELS[key[0]][6] and KERNELS[key[0]][1] < KERNELS[key[0]][0] and mnk(size)[1] > 16)]
            if keys:
                chosen = min(keys, key=lambda key: predict(key[0], key[1], size, dtype, p, sms))
                ratios.append(min(times[key] for key in keys) / times[chosen])
    p["geomean_fastest_over_chosen"] = round(math.exp(sum(map(math.log, ratios)) / len(ratios)), 4) if ratios else None
    return p, times


def table(p, device):
    lines = [f'      KernelRate{{"{k}", {r["two_byte"]:.1f}, {r["tf32"]:.1f}, {r["item_ns"]:.1f}, '
             f'{r["stream"]:.3f}}},' for k, r in p["rates"].items()]
    return "\n".join([
        "// The chooser's measured rates, per device (tuning.hpp): each kernel's multiply-adds per",
        "// nanosecond per SM with every slot busy, for 2-byte inputs and tf32, the fixed time of a work",
        "// item and the fraction of the DRAM's speed it reads at where memory-bound; and the costs",
        "// around the kernels. Written by scripts/tune_tensor.py from",
        f"// docs/results/data/tensor-tuning-{device['file_tag']}.json, the fit of a tensor-matmul-tiles sweep on",
        f"// an {device['name']}; a cpu test checks that the two agree. To tune another device, run",
        "// scripts/tune-tensor.sh there and add its rows.",
        "#include <array>",
        "",
        '#include "tensor_matmul/tuning.hpp"',
        "",
        "namespace smemlab::tensor_matmul {",
        "",
        "std::span<const TensorTuning> tensor_tunings() {",
        "  // clang-format off",
        "  static constexpr std::array measured{",
        *lines,
        "  };",
        "  // clang-format on",
        f"  static constexpr std::array devices{{TensorTuning{{{device['cc_major']}, {device['cc_minor']}, {device['sms']}, "
        f"{p['launch_ns']:.1f}, {p['dram_bytes_per_ns']:.1f}, {p['l2_bytes_per_ns']:.1f}, {p['partial_bytes_per_ns']:.1f}, "
        "measured}};",
        "  return devices;",
        "}",
        "",
        "}  // namespace smemlab::tensor_matmul",
        "",
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fit"])
    parser.add_argument("sweep")
    parser.add_argument("--json", required=True)
    parser.add_argument("--table", required=True)
    args = parser.parse_args()
    sweep = json.load(open(args.sweep))
    d = sweep["device"]
    cc_major, cc_minor = (int(x) for x in d["compute_capability"].split("."))
    p, times = fit(sweep["rows"], d["sms"])
    tag = "h200" if "H200" in d["name"] else "h100" if "H100" in d["name"] else "device"
    device = {"name": d["name"], "cc_major": cc_major, "cc_minor": cc_minor, "sms": d["sms"], "file_tag": tag}
    out = {"device": device, **{k: (round(v, 1) if isinstance(v, float) and k.endswith("ns") else v) for k, v in p.items()},
           "measured_ns": {f"{k}/k{s} {size} {dt}": round(t, 1) for (k, s, size, dt), t in sorted(times.items())},
           # The model's time for each swept choice with the rates as the table rounds them: a cpu
           # test checks that src/tensor_matmul/16_auto.cpp predicts the same.
           "predicted_ns": {}}
    for name, r in p["rates"].items():
        for key in ("two_byte", "tf32", "item_ns"):
            r[key] = round(r[key], 1)
    for key in ("launch_ns", "dram_bytes_per_ns", "l2_bytes_per_ns", "partial_bytes_per_ns"):
        p[key] = round(p[key], 1)
    for (k, s, size, dt) in sorted(times):
        if k in p["rates"]:
            out["predicted_ns"][f"{k}/k{s} {size} {dt}"] = round(predict(k, s, size, dt, p, d["sms"]), 3)
    json.dump(out, open(args.json, "w"), indent=1)
    open(args.table, "w").write(table(p, device))
    print(f"launch {p['launch_ns']:.0f} ns, dram {p['dram_bytes_per_ns']:.0f} B/ns, L2 {p['l2_bytes_per_ns']:.0f} B/ns, partial sums "
          f"{p['partial_bytes_per_ns']:.0f} B/ns, rms log error {p['rms_log_error']}, "
          f"geomean fastest/chosen {p['geomean_fastest_over_chosen']}")
    for k, r in p["rates"].items():
        print(f"  {k:16} {r['two_byte']:8.1f} {r['tf32']:8.1f} MAC/ns/SM  item {r['item_ns']:7.1f} ns")


if __name__ == "__main__":
    sys.exit(main())
