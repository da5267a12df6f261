#!/usr/bin/env python3
"""The autotuned matmul variant's model, fitted to a matmul-tiles sweep, and the sweep's candidates.

  tune_table.py candidates SIZE [--sms N]
      prints, comma-separated, every choice the model can make at SIZE (MxNxK or N): each
      configuration one block per tile, with the last-wave split, and with each split-K it
      considers.
  tune_table.py fit SWEEP.json [SWEEP.json ...] --output tuning.json [--table FILE.cpp]
      fits the model (src/matmul/tile_model.cpp, mirrored below) to the sweep: each
      configuration's speed from its one-block-per-tile run at the calibration sizes, then the
      fixed costs and the occupancy exponent that make its choices the best measured, and writes
      them as src/matmul/tuning_table.cpp (--table). The output keeps every measured time,
      against which a cpu test checks the library's choices.

The configurations (tile, threads, blocks per SM) are read from src/matmul/12_autotuned.cu.
"""
import argparse
import json
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPLITS = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)  # matmul::split_k_choices()
GROUP = 8  # the raster group of every choice the model makes
ALIGNED_AT = "8192"  # calibration sizes: many waves, B's rows aligned or not
UNALIGNED_AT = "4097"


TABLE = """\
// The autotuned variant's measured speeds, per device: each configuration's multiply-adds per
// nanosecond per SM with every slot busy, and the model's constants. Written by
// scripts/tune_table.py from docs/results/data/{output} (the fit of a matmul-tiles sweep on
// an H200); a cpu test checks that the two agree. To tune another device, run
// scripts/tune-matmul.sh there and add its rows.
#include <array>

#include "smemlab/matmul.hpp"

namespace smemlab::matmul {{

std::span<const DeviceTuning> device_tunings() {{
  // clang-format off
  static constexpr std::array h200{{
{rows}  }};
  // clang-format on
  static constexpr std::array devices{{DeviceTuning{{{cc_major}, {cc_minor}, {sms}, {launch_ns}, {part_bw}, {exponent}, h200}}}};
  return devices;
}}

}}  // namespace smemlab::matmul
"""


def configs():
    src = (ROOT / "src/matmul/12_autotuned.cu").read_text()
    pattern = re.compile(r'named<TileConfig<(\d+), (\d+), (\d+), \d+, \d+, \d+, \d+, \d+, (\d+)(?:, \w+)?>>\("([^"]+)"\)')
    return {name: {"bm": int(bm), "bn": int(bn), "bk": int(bk), "bps": int(bps)}
            for bm, bn, bk, bps, name in pattern.findall(src)}


def dims(size):
    parts = [int(p) for p in size.split("x")]
    return parts * 3 if len(parts) == 1 else parts


def ceil_div(a, b):
    return (a + b - 1) // b


def choices_at(m, n, k, cfgs, sms):
    """Every (config, slices, last-wave split) the model weighs at m x n x k."""
    for name, c in cfgs.items():
        tiles = ceil_div(m, c["bm"]) * ceil_div(n, c["bn"])
        per_tile = ceil_div(k, c["bk"])
        slots = c["bps"] * sms
        yield name, 1, False
        for s in SPLITS:
            if s <= per_tile and tiles * s <= 2 * slots:
                yield name, s, False
        if tiles % slots != 0 and tiles > slots:
            yield name, 1, True


def candidate(name, slices, last_wave):
    return f"{name}/g{GROUP}/" + ("lw" if last_wave else f"k{slices}")


def waves_ns(count, steps, c, rate, sms, exponent):
    slots = c["bps"] * sms

    def wave(blocks):
        busy = min(c["bps"], ceil_div(blocks, sms))
        sm_rate = rate * (busy / c["bps"]) ** exponent
        return steps * c["bm"] * c["bn"] * c["bk"] / (sm_rate / busy)

    rest = count % slots
    return (count // slots) * wave(slots) + (wave(rest) if rest else 0.0)


def estimate_ns(c, slices, last_wave, m, n, k, rate, sms, launch_ns, part_bw, exponent):
    """tile_model.cpp's estimate(): rate in multiply-adds per ns per SM."""
    tiles = ceil_div(m, c["bm"]) * ceil_div(n, c["bn"])
    per_tile = ceil_div(k, c["bk"])
    slots = c["bps"] * sms
    whole, split = tiles, 1
    if last_wave:
        whole = tiles - tiles % slots
        split = max(1, slots // (tiles - whole)) if tiles > whole else 1
    elif slices > 1:
        whole, split = 0, slices
    split = min(split, per_tile)
    if split == 1:
        whole = tiles
    divided = tiles - whole
    spread_sum = whole == 0 and split > 1 and divided * split <= slots  # every block sums a share
    launches = (whole > 0) + (divided > 0)  # the last-wave split: whole tiles, then divided ones
    ns = launches * launch_ns + waves_ns(whole, per_tile, c, rate, sms, exponent)
    if divided:
        ns += waves_ns(divided * split, ceil_div(per_tile, split), c, rate, sms, exponent)
        ns += (1 if spread_sum else split) * 4.0 * c["bm"] * c["bn"] / part_bw
    return ns


def cmd_candidates(args):
    m, n, k = dims(args.size)
    print(",".join(candidate(*ch) for ch in choices_at(m, n, k, configs(), args.sms)))


def cmd_fit(args):
    cfgs = configs()
    device = None
    times = {}  # size -> candidate -> median ms
    cublas = {}
    unverified = []
    for path in args.sweeps:
        report = json.load(open(path))
        device = report["device"]
        for row in report["rows"]:
            if row["variant"] == "cublas":
                cublas[row["size"]] = row["median_ms"]
            elif not row["verified"]:
                unverified.append(f'{row["variant"]} at {row["size"]}')
            else:
                times.setdefault(row["size"], {})[row["variant"]] = row["median_ms"]
    sms = device["sms"]

    # Speeds: the model inverted at the calibration sizes (launch costs are microseconds there,
    # against milliseconds of K-loop).
    speeds = {}
    for name, c in cfgs.items():
        speeds[name] = {}
        for kind, size in (("aligned", ALIGNED_AT), ("unaligned", UNALIGNED_AT)):
            m, n, k = dims(size)
            ms = times[size][candidate(name, 1, False)]
            unit = estimate_ns(c, 1, False, m, n, k, 1.0, sms, 0.0, 1.0, 1.0)  # ns at 1 MAC/ns/SM
            speeds[name][kind] = round(unit / (ms * 1e6), 1)

    def pick(size, launch_ns, part_bw, exponent):
        m, n, k = dims(size)
        kind = "aligned" if n % 4 == 0 else "unaligned"
        best = None
        for name, slices, last_wave in choices_at(m, n, k, cfgs, sms):
            ns = estimate_ns(cfgs[name], slices, last_wave, m, n, k, speeds[name][kind], sms, launch_ns, part_bw,
                             exponent)
            if best is None or ns < best[0]:
                best = (ns, candidate(name, slices, last_wave))
        return best[1]

    # The fixed costs: those whose choices come closest to the fastest measured at every size
    # (geometric mean of fastest / chosen; an unmeasured choice counts as a miss).
    def score(launch_ns, part_bw, exponent):
        logs = []
        for size, t in times.items():
            chosen = t.get(pick(size, launch_ns, part_bw, exponent))
            logs.append(math.log(min(t.values()) / chosen) if chosen else -1.0)
        return sum(logs) / len(logs)

    grid = [(float(l), float(b), e / 10) for l in range(0, 10001, 1000) for b in (10, 20, 40, 80, 160, 320)
            for e in range(0, 11, 2)]
    launch_ns, part_bw, exponent = max(grid, key=lambda p: score(*p))

    shapes = []
    for size in times:
        shapes.append({"size": size, "mnk": dims(size), "cublas_ms": cublas.get(size),
                       "model": pick(size, launch_ns, part_bw, exponent), "ms": times[size]})
    cc_major, cc_minor = (int(x) for x in device["compute_capability"].split("."))
    out = {
        "device": {"name": device["name"], "cc_major": cc_major, "cc_minor": cc_minor, "sms": sms},
        "launch_ns": launch_ns,
        "part_bytes_per_ns": part_bw,
        "occupancy_exponent": exponent,
        "geomean_fastest_over_chosen": round(math.exp(score(launch_ns, part_bw, exponent)), 4),
        "configs": [{"config": name, **speeds[name]} for name in cfgs],
        "unverified": unverified,
        "shapes": shapes,
    }
    with open(args.output, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    if args.table:
        rows = "".join(f'      ConfigSpeed{{"{name}", {speeds[name]["aligned"]}, {speeds[name]["unaligned"]}}},\n'
                       for name in cfgs)
        Path(args.table).write_text(TABLE.format(output=Path(args.output).name, rows=rows, cc_major=cc_major,
                                                 cc_minor=cc_minor, sms=sms, launch_ns=launch_ns, part_bw=part_bw,
                                                 exponent=exponent))
    print(f"  launch_ns {launch_ns}, part_bytes_per_ns {part_bw}, occupancy_exponent {exponent}, "
          f"fastest / chosen {out['geomean_fastest_over_chosen']}")
    for s in shapes:
        best = min(s["ms"], key=s["ms"].get)
        chosen = s["ms"].get(s["model"])
        ratio = f"{s['ms'][best] / chosen:.3f}" if chosen else "unmeasured"
        vs = f"{s['cublas_ms'] / chosen:.3f}" if chosen and s["cublas_ms"] else "-"
        print(f"  {s['size']:>16}: model {s['model']} ({ratio} of fastest {best}); vs cuBLAS {vs}")
    if unverified:
        print("UNVERIFIED:", ", ".join(unverified))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(required=True)
    c = sub.add_parser("candidates")
    c.add_argument("size")
    c.add_argument("--sms", type=int, default=132)
    c.set_defaults(run=cmd_candidates)
    f = sub.add_parser("fit")
    f.add_argument("sweeps", nargs="+")
    f.add_argument("--output", required=True)
    f.add_argument("--table", help="write the fit as this C++ file (src/matmul/tuning_table.cpp)")
    f.set_defaults(run=cmd_fit)
    args = ap.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
