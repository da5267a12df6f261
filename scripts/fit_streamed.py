#!/usr/bin/env python3
"""Rates of the streamed kernels that the FP32 default call (src/matmul/14_auto.cpp) weighs.

  fit_streamed.py RUN.json [RUN.json ...]

The runs: `smemlab bench --format json` with the variant matmul/skinny (and matmul/autotuned, for
the tiles' stores), and tensor-matmul's small_k in tf32 (float operands, FP32 sums: the kernel the
FP32 call runs). For each kernel it fits

    ns = launches * per_launch + max(bytes / (fraction * DRAM peak), multiply-adds / (rate * SMs),
                                     rounds * round latency)

(rounds: the loads a block waits for one after another) by least squares on the logarithm over a
grid of the four constants, and prints them with the error of each row. It also prints the speed at which 12's tiles store C with rows that are not
16-byte aligned (their stores go 4 bytes at a time), from the short-K rows of the autotuned variant.
The plan of the skinny kernel mirrors plan_skinny in src/matmul/13_skinny.cu.
"""
import json
import math
import sys


def sizes(row):
    m, n, k = (int(x) for x in row["size"].split("x"))
    return m, n, k


def skinny_work(m, n, k, sms):
    """Launches, bytes, multiply-adds and rounds of loads a block of matmul/skinny, as 13_skinny.cu plans them."""
    thin = min(m, n)
    width = 1
    while width < min(thin, 16):
        width *= 2
    groups = math.ceil(thin / width)
    few_rows = m <= n
    per_group = math.ceil(n / 128) if few_rows else math.ceil(m / 32)
    blocks = groups * per_group
    round_k = 8 * (8 if width <= 4 else 4) if few_rows else 128
    by_k = min(max(1, k // round_k), 65535)
    fewest = min(-(-4 * sms // blocks), by_k)

    def range_of(r):
        return k if r == 1 else -(-(-(-k // r)) // round_k) * round_k

    best = None
    for r in range(fewest, min(by_k, 4 * fewest) + 1):
        rk = range_of(r)
        cost = -(-(blocks * -(-k // rk)) // sms) * rk
        if best is None or cost < best[0]:
            best = (cost, rk)
    range_k = best[1]
    ranges = -(-k // range_k)
    rounds = -(-range_k // round_k)
    large, c = max(m, n) * k, m * n
    partials = 2 * ranges * c if ranges > 1 else 0
    return (2 if ranges > 1 else 1), 4.0 * (groups * large + thin * k + 2 * c + partials), groups * width * large, rounds


def small_k_work(m, n, k, _sms):
    """The same for small_k: its 32 x 256 tiles whole, K in chunks of 16 (a round each)."""
    chunks = math.ceil(k / 16)
    return 1, 4.0 * (m * n + (m + n) * k), math.ceil(m / 32) * 32 * math.ceil(n / 256) * 256 * chunks * 16, chunks


def predict(point, per_launch, fraction, rate, round_ns, peak, sms):
    _, launches, byte_count, fmas, rounds, _ = point
    return launches * per_launch + max(byte_count / (fraction * peak), fmas / (rate * sms), rounds * round_ns)


def fit(points, peak, sms):
    best = None
    for per_launch in range(1000, 8001, 250):
        for fraction in (x / 100 for x in range(60, 100, 2)):
            for rate in range(20, 161, 5):
                for round_ns in range(200, 4001, 100):
                    err = sum(math.log(predict(p, per_launch, fraction, rate, round_ns, peak, sms) / p[-1]) ** 2
                              for p in points)
                    if best is None or err < best[0]:
                        best = (err, per_launch, fraction, rate, round_ns)
    err, per_launch, fraction, rate, round_ns = best
    print(f"  per launch {per_launch} ns, DRAM fraction {fraction:.2f}, {rate} multiply-adds/ns/SM, "
          f"{round_ns} ns a round of loads; rms log error {math.sqrt(err / len(points)):.3f} over {len(points)} rows")
    for p in points:
        ns = predict(p, per_launch, fraction, rate, round_ns, peak, sms)
        print(f"    {p[0]:>16} measured {p[-1] / 1000:8.1f} us  predicted {ns / 1000:8.1f} us")


def main():
    runs = [json.load(open(p)) for p in sys.argv[1:]]
    for variant, dtype, work in (("skinny", "float", skinny_work), ("small_k", "tf32", small_k_work)):
        points, device = [], None
        for run in runs:
            sms = run["device"]["sms"]
            for r in run["rows"]:
                m, n, k = sizes(r)
                if r["variant"] != variant or r["dtype"] != dtype or (variant == "skinny" and min(m, n) > 16):
                    continue
                device = run["device"]
                points.append((r["size"], *work(m, n, k, sms), r["median_ms"] * 1e6))
        if not points:
            continue
        print(f"{variant} ({device['name']}):")
        fit(points, device["dram_peak_gbs"], device["sms"])
    speeds = []
    for run in runs:
        for r in run["rows"]:
            m, n, k = sizes(r)
            if r["variant"] == "autotuned" and k <= 16 and n % 4 != 0:
                speeds.append(4.0 * m * n / (r["median_ms"] * 1e6))
    if speeds:
        speeds.sort()
        print(f"12's tiles storing C with unaligned rows: median {speeds[len(speeds) // 2]:.0f} bytes/ns "
              f"over {len(speeds)} rows with K <= 16 (range {speeds[0]:.0f}-{speeds[-1]:.0f})")


if __name__ == "__main__":
    main()
