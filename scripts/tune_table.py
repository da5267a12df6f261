#!/usr/bin/env python3
"""The autotuned matmul variant's model, fitted to a matmul-tiles sweep, and the sweep's candidates.

  tune_table.py candidates SIZE [--sms N]
      prints, comma-separated, every choice the model can make at SIZE (MxNxK or N): each
      configuration one block per tile, with the last-wave split, and with each split-K it
      considers; each also with B copied to aligned rows first when N is not a multiple of 4.
  tune_table.py fit SWEEP.json [SWEEP.json ...] --output tuning.json [--table FILE.cpp]
      fits the model (src/matmul/tile_model.cpp, mirrored below) to the sweep: each
      configuration's speed from its one-block-per-tile run at the calibration sizes, then the
      constants that predict every measured time best (least squares on the logarithm), and
      writes them as src/matmul/tuning_table.cpp (--table). The output keeps every measured time,
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

#include "matmul/tuning.hpp"

namespace smemlab::matmul {{

std::span<const DeviceTuning> device_tunings() {{
  // clang-format off
  static constexpr std::array h200{{
{rows}  }};
  // clang-format on
  static constexpr std::array devices{{
      DeviceTuning{{{cc_major}, {cc_minor}, {sms}, {launch_ns}, {wave_ns}, {part_bytes_per_ns}, {occupancy_exponent}, {divided_speed},
                   {copy_bytes_per_ns}, h200}}}};
  return devices;
}}

}}  // namespace smemlab::matmul
"""


def configs():
    src = (ROOT / "src/matmul/12_autotuned.cu").read_text()
    pattern = re.compile(
        r'named<TileConfig<(\d+), (\d+), (\d+), \d+, \d+, \d+, \d+, (\d+), (\d+)(?:, \w+)?>>\("([^"]+)"\)')
    return {name: {"bm": int(bm), "bn": int(bn), "bk": int(bk), "stages": int(stages), "bps": int(bps)}
            for bm, bn, bk, stages, bps, name in pattern.findall(src)}


def dims(size):
    parts = [int(p) for p in size.split("x")]
    return parts * 3 if len(parts) == 1 else parts


def ceil_div(a, b):
    return (a + b - 1) // b


def division(c, slices, last_wave, m, n, k, sms):
    """How a choice divides the tiles (ConfigLaunch::schedule): (tiles, whole, parts, K-steps per tile)."""
    tiles = ceil_div(m, c["bm"]) * ceil_div(n, c["bn"])
    per_tile = ceil_div(k, c["bk"])
    slots = c["bps"] * sms
    whole, parts = tiles, 1
    if last_wave:
        whole = tiles - tiles % slots
        parts = max(1, slots // (tiles - whole)) if tiles > whole else 1
    elif slices > 1:
        whole, parts = 0, slices
    parts = min(parts, per_tile)
    if parts == 1:
        whole = tiles
    return tiles, whole, parts, per_tile


def choices_at(m, n, k, cfgs, sms):
    """Every (config, slices, last-wave split, B copied to aligned rows) the model weighs at
    m x n x k: a divided tile's blocks keep at least as many K-steps as the configuration has
    stages; B is copied only when its rows are not aligned (n not a multiple of 4)."""
    for align_b in (False, True) if n % 4 else (False,):
        for name, c in cfgs.items():
            tiles, _, _, per_tile = division(c, 1, False, m, n, k, sms)
            slots = c["bps"] * sms
            yield name, 1, False, align_b
            for s in SPLITS:
                if s <= per_tile and tiles * s <= 2 * slots and ceil_div(per_tile, s) >= c["stages"]:
                    yield name, s, False, align_b
            if tiles % slots != 0 and tiles > slots:
                parts = division(c, 1, True, m, n, k, sms)[2]
                if ceil_div(per_tile, parts) >= c["stages"]:
                    yield name, 1, True, align_b


def candidate(name, slices, last_wave, align_b):
    return f"{name}/g{GROUP}/" + ("lw" if last_wave else f"k{slices}") + ("/align-b" if align_b else "")


def waves_ns(count, steps, c, rate, sms, p):
    slots = c["bps"] * sms

    def wave(blocks):
        busy = min(c["bps"], ceil_div(blocks, sms))
        sm_rate = rate * (busy / c["bps"]) ** p["occupancy_exponent"]
        return p["wave_ns"] + steps * c["bm"] * c["bn"] * c["bk"] / (sm_rate / busy)

    rest = count % slots
    return (count // slots) * wave(slots) + (wave(rest) if rest else 0.0)


def estimate_ns(c, slices, last_wave, align_b, m, n, k, rate, sms, p):
    """tile_model.cpp's estimate(): rate in multiply-adds per ns per SM (the configuration's
    aligned, unaligned or copied speed), p the fixed costs."""
    tiles, whole, parts, per_tile = division(c, slices, last_wave, m, n, k, sms)
    divided = tiles - whole
    spread_sum = whole == 0 and parts > 1 and divided * parts <= c["bps"] * sms  # every block sums a share
    launches = (whole > 0) + (divided > 0)  # the last-wave split: whole tiles, then divided ones
    ns = launches * p["launch_ns"] + waves_ns(whole, per_tile, c, rate, sms, p)
    if divided:
        ns += waves_ns(divided * parts, ceil_div(per_tile, parts), c, rate * p["divided_speed"], sms, p)
        ns += (1 if spread_sum else parts) * 4.0 * c["bm"] * c["bn"] / p["part_bytes_per_ns"]
    if align_b and n % 4:
        ns += p["launch_ns"] + 2 * 4.0 * k * n / p["copy_bytes_per_ns"]
    return ns


def speed_from(c, align_b, ms, m, n, k, sms, p):
    """The rate at which estimate_ns gives ms for one block per tile: estimate_ns is
    fixed + work / rate."""
    fixed = estimate_ns(c, 1, False, align_b, m, n, k, math.inf, sms, p)
    work = estimate_ns(c, 1, False, align_b, m, n, k, 1.0, sms, p) - fixed
    return work / (ms * 1e6 - fixed)


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

    # Each configuration's speed: the model inverted at the calibration sizes (many waves, so
    # the fixed costs are small there), given the fixed costs.
    def speeds_for(p):
        out = {}
        for name, c in cfgs.items():
            out[name] = {}
            for kind, size, align_b in (("aligned", ALIGNED_AT, False), ("unaligned", UNALIGNED_AT, False),
                                        ("copied", UNALIGNED_AT, True)):
                m, n, k = dims(size)
                ms = times[size][candidate(name, 1, False, align_b)]
                out[name][kind] = round(speed_from(c, align_b, ms, m, n, k, sms, p), 1)
        return out

    def kind_of(n, align_b):
        return "aligned" if n % 4 == 0 else "copied" if align_b else "unaligned"

    def predicted(size, p, speeds):
        """(ns, candidate) for every choice the model weighs at size."""
        m, n, k = dims(size)
        return [(estimate_ns(cfgs[name], slices, last_wave, align_b, m, n, k, speeds[name][kind_of(n, align_b)], sms,
                             p), candidate(name, slices, last_wave, align_b))
                for name, slices, last_wave, align_b in choices_at(m, n, k, cfgs, sms)]

    def pick(size, p, speeds):
        return min(predicted(size, p, speeds))[1]

    # The fixed costs: those that predict every measured time best (least squares on the
    # logarithm, so that a microsecond launch weighs as much as a millisecond one).
    def log_error(p):
        speeds = speeds_for(p)
        errors = [math.log(ns / (times[size][name] * 1e6)) ** 2
                  for size in times for ns, name in predicted(size, p, speeds) if name in times[size]]
        return sum(errors) / len(errors)

    keys = ("launch_ns", "wave_ns", "part_bytes_per_ns", "occupancy_exponent", "divided_speed", "copy_bytes_per_ns")
    grid = [dict(zip(keys, (float(launch), float(wave), float(bw), e / 10, d / 20, float(copy))))
            for launch in (0, 2000, 4000) for wave in (0, 2000, 4000, 6000) for bw in (20, 40, 80, 160)
            for e in range(0, 11, 2) for d in (16, 18, 20) for copy in (1000, 3000)]
    params = min(grid, key=log_error)
    steps = {"launch_ns": 250.0, "wave_ns": 250.0, "part_bytes_per_ns": 5.0, "occupancy_exponent": 0.05,
             "divided_speed": 0.025, "copy_bytes_per_ns": 100.0}
    lower = {"launch_ns": 0.0, "wave_ns": 0.0, "part_bytes_per_ns": 5.0, "occupancy_exponent": 0.0,
             "divided_speed": 0.5, "copy_bytes_per_ns": 100.0}
    improved = True
    while improved:  # coordinate descent from the best grid point
        improved = False
        for key in keys:
            for sign in (-1, 1):
                trial = dict(params, **{key: round(max(lower[key], params[key] + sign * steps[key]), 3)})
                if log_error(trial) < log_error(params) - 1e-9:
                    params, improved = trial, True
    speeds = speeds_for(params)

    def pick_quality():
        """Geometric mean over the sizes of fastest measured / chosen."""
        logs = [math.log(min(t.values()) / t[pick(size, params, speeds)]) if pick(size, params, speeds) in t
                else -1.0 for size, t in times.items()]
        return math.exp(sum(logs) / len(logs))

    shapes = []
    for size in times:
        shapes.append({"size": size, "mnk": dims(size), "cublas_ms": cublas.get(size),
                       "model": pick(size, params, speeds), "ms": times[size]})
    cc_major, cc_minor = (int(x) for x in device["compute_capability"].split("."))
    out = {
        "device": {"name": device["name"], "cc_major": cc_major, "cc_minor": cc_minor, "sms": sms},
        **params,
        "rms_log_error": round(math.sqrt(log_error(params)), 4),
        "geomean_fastest_over_chosen": round(pick_quality(), 4),
        "configs": [{"config": name, **speeds[name]} for name in cfgs],
        "unverified": unverified,
        "shapes": shapes,
    }
    with open(args.output, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    if args.table:
        rows = "".join(f'      ConfigSpeed{{"{name}", {speeds[name]["aligned"]}, {speeds[name]["unaligned"]}, '
                       f'{speeds[name]["copied"]}}},\n' for name in cfgs)
        Path(args.table).write_text(TABLE.format(output=Path(args.output).name, rows=rows, cc_major=cc_major,
                                                 cc_minor=cc_minor, sms=sms, **params))
    print("  " + ", ".join(f"{key} {value}" for key, value in params.items()) +
          f"; rms log error {out['rms_log_error']}, fastest / chosen {out['geomean_fastest_over_chosen']}")
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
