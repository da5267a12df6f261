#!/usr/bin/env python3
"""Summaries and plots of smemlab's JSON output.

  plot_bench.py RESULTS.json [--family F] [--summary | --markdown] [--plot OUT.png]
  plot_bench.py RESULTS.json [MORE.json ...] --best [--plot OUT.png]
  plot_bench.py BANKS.json --plot OUT.png

RESULTS.json is `smemlab bench --format json` output. Without --plot the script prints the
summary: one line per variant, one column per size, each cell "throughput (ratio to the
reference)"; --markdown prints it as a markdown table. --plot draws one panel per size class
(square, rectangular, odd: a dimension that is not a multiple of 32) and element type, the
reference in black, the tutorials' steps dashed with hollow markers, the steps past them solid.

--best takes one or more results files and finds, for each family and element type, the variant
with the best geometric-mean ratio to the reference over the sizes measured; it prints them, and
with --plot draws their ratios across the sizes, one panel per family, the reference at 1.0.

BANKS.json is `smemlab banks EXPR --map --format json` output: --plot draws the banks of the
mapped warp, banks across and wavefronts down, each lane's cell coloured by its wavefront, and
outlines the cells whose word several lanes read (a broadcast).

Plotting needs matplotlib (python3 -m pip install matplotlib, or the distribution's package
python3-matplotlib); the summaries do not. Every error is one line on stderr and exit status 2.
"""

import argparse
import collections
import json
import math
import sys

MAX_LINES = 16  # a sweep with more variants than this plots its fastest (matmul-tiles)
SQUARE_RANK = {
    "matmul": 3,
    "matmul-tiles": 3,
    "tensor-matmul": 3,
    "transpose": 2,
}  # dimensions a single N stands for
GEMM_SIZES = "size: N for N x N x N, or M x N x K"
SIZE_AXIS = {
    "matmul": GEMM_SIZES,
    "matmul-tiles": GEMM_SIZES,
    "tensor-matmul": GEMM_SIZES,
    "transpose": "size: N for N x N, or rows x columns",
    "reduction": "elements summed",
    "scan": "elements scanned",
    "banks": "stride (elements between consecutive lanes)",
}
# Variants that --best leaves out: they do not do the family's job (the copy is the transpose's
# ceiling) or run on the CPU. The banks family compares access widths, not implementations.
NOT_CANDIDATES = {("transpose", "copy")}
NOT_RACED = {"banks"}
# One colour per series of a plot (tab10, then the dark tones of tab20b), and markers cycled
# beside them, so that no two series look alike; black is the reference's.
COLOURS = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#637939",
    "#8c6d31",
    "#843c39",
    "#7b4173",
    "#e7ba52",
]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "h", "<", ">", "p", "*"]


class Failure(Exception):
    pass


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Failure(f"cannot read {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise Failure(f"{path} is not JSON: {e.msg} at line {e.lineno}")


def bench_rows(doc, path, family, several=False):
    """The rows of `family`, or of the one family the file holds; every family's with `several`."""
    rows = doc.get("rows") if isinstance(doc, dict) else None
    needed = (
        "family",
        "variant",
        "dtype",
        "size",
        "throughput",
        "throughput_unit",
        "vs_reference",
        "verified",
    )
    if not isinstance(rows, list) or not all(
        isinstance(r, dict) and all(k in r for k in needed) for r in rows
    ):
        raise Failure(
            f"{path} is not `smemlab bench --format json` output (rows with {', '.join(needed)})"
        )
    families = ordered(r["family"] for r in rows)
    if several:
        return rows
    if family is None and len(families) > 1:
        raise Failure(
            f"{path} holds several families ({', '.join(families)}): choose one with --family"
        )
    chosen = [r for r in rows if family is None or r["family"] == family]
    if not chosen:
        raise Failure(
            f"no rows for family {family!r} in {path} (it has {', '.join(families) or 'none'})"
        )
    return chosen


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def dims(size, family):
    size = size.split()[0]  # a GEMM size may end in its operands' layout: "4096 NT"
    parts = [2 ** int(d[2:]) if d.startswith("2^") else int(d) for d in size.split("x")]
    return parts * SQUARE_RANK.get(family, 1) if len(parts) == 1 else parts


def work(size, family):
    return math.prod(dims(size, family))


def size_class(size, family):
    if family == "banks":
        return "stride"
    d = dims(size, family)
    if any(x % 32 for x in d):
        return "odd"
    if len(d) == 1:
        return "aligned"
    return "square" if len(set(d)) == 1 else "rectangular"


def display(rows):
    """The unit the tables use: TFLOP/s for flops, the row's own unit otherwise."""
    unit = rows[0]["throughput_unit"]
    return (1e-3, "TFLOP/s") if unit == "GFLOP/s" else (1.0, unit)


def is_reference(row, doc):
    if "reference" in row:
        return row["reference"]
    return row["variant"] in ("cublas", "cub", "ideal")  # results written before rows said so


def tutorial_steps(doc):
    return {(v["family"], v["name"]) for v in doc.get("variants", []) if v.get("tutorials")}


def run_type(rows, doc):
    """Each row's element type as its run has it: the reference row's (banks rows differ per
    width)."""
    types, current = [], None
    for r in rows:
        if is_reference(r, doc) or current is None:
            current = r["dtype"]
        types.append(current)
    return types


# ---------------------------------------------------------------- summary


def summary(doc, rows, markdown):
    types = run_type(rows, doc)
    for dtype in ordered(types):
        typed = [r for r, t in zip(rows, types) if t == dtype]
        summary_one(doc["device"], typed, dtype, markdown)


def summary_one(device, rows, dtype, markdown):
    family = rows[0]["family"]
    sizes = sorted(ordered(r["size"] for r in rows), key=lambda s: work(s, family))
    variants = ordered(r["variant"] for r in rows)
    cell = {(r["variant"], r["size"]): r for r in rows}
    scale, unit = display(rows)
    digits = 3 if max(r["throughput"] for r in rows) * scale < 10 else 2

    def text(v, s):
        r = cell.get((v, s))
        if r is None:
            return "-"
        failed = "" if r["verified"] else " FAILED"
        return f"{r['throughput'] * scale:.{digits}f} ({r['vs_reference']:.2f}){failed}"

    if markdown:
        print(f"\n{family}, {dtype}: {unit} (ratio to the reference)\n")
        print("| variant | " + " | ".join(sizes) + " |")
        print("|---|" + "---:|" * len(sizes))
        for v in variants:
            print(f"| {v} | " + " | ".join(text(v, s) for s in sizes) + " |")
        return
    print(
        f"{device.get('name', '?')}, {family} {dtype}: {unit} (ratio to the reference); "
        "FAILED = failed verification"
    )
    width = max(len(v) for v in variants)
    if len(sizes) > 12:  # many sizes (the bank strides): sizes down, variants across
        print(f"{'size':>8}" + "".join(f"{v:>22}" for v in variants))
        for s in sizes:
            print(f"{s:>8}" + "".join(f"{text(v, s):>22}" for v in variants))
        return
    print(" " * width + "".join(f"{s:>20}" for s in sizes))
    for v in variants:
        print(f"{v:<{width}}" + "".join(f"{text(v, s):>20}" for s in sizes))


# ---------------------------------------------------------------- bench plots


def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise Failure(
            "plotting needs matplotlib (python3 -m pip install matplotlib, or the package "
            "python3-matplotlib); --summary and --best work without it"
        )
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fastest(rows, doc, limit):
    """The variants to draw: all, or the `limit` with the best geometric-mean ratio."""
    variants = [v for v in ordered(r["variant"] for r in rows) if not v.startswith("cpu_")]
    reference = [
        v for v in variants if any(is_reference(r, doc) for r in rows if r["variant"] == v)
    ]
    others = [v for v in variants if v not in reference]
    if len(others) <= limit:
        return reference + others, len(others)
    return reference + sorted(others, key=lambda v: geometric_mean(rows, v), reverse=True)[
        :limit
    ], len(others)


def geometric_mean(rows, variant):
    ratios = [r["vs_reference"] for r in rows if r["variant"] == variant and r["vs_reference"] > 0]
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else 0.0


def log_ticks(ax):
    """Labels on a log y axis wherever the eye looks for one: the narrower the range, the more
    values between the powers of ten are labelled (1, 2, 5; then 3; then 4, 6 and 8; within a
    factor of four, evenly spaced round values)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

    low, high = ax.get_ylim()
    decades = math.log10(high / low)
    if decades < 0.6:
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))
    else:
        subs = (
            (1, 2, 5) if decades > 2.5 else (1, 2, 3, 5) if decades > 1.2 else (1, 2, 3, 4, 5, 6, 8)
        )
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_locator(LogLocator(base=10, subs=range(1, 10)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(low, high)


def size_ticks(ax, sizes, turned):
    step = max(1, len(sizes) // 16)
    ax.set_xticks(range(0, len(sizes), step))
    ax.set_xticklabels(
        sizes[::step], rotation=30 if turned else 0, ha="right" if turned else "center", fontsize=8
    )


def series_styles(family, drawn, reference, from_tutorials):
    """Each drawn variant's line style: the reference black and dashed; every other series its
    own colour and marker, hollow and dash-dot for the tutorials' steps, solid past them."""
    styles, index = {}, 0
    for v in drawn:
        if v in reference:
            styles[v] = dict(color="black", linestyle="--", linewidth=2.6, marker="s", zorder=5)
            continue
        colour, marker = COLOURS[index % len(COLOURS)], MARKERS[index % len(MARKERS)]
        index += 1
        if (family, v) in from_tutorials:
            styles[v] = dict(
                color=colour, linestyle="-.", linewidth=1.2, marker=marker, markerfacecolor="white"
            )
        else:
            styles[v] = dict(color=colour, linestyle="-", linewidth=1.8, marker=marker)
    return styles


def plot_bench(doc, rows, out):
    plt = pyplot()
    family = rows[0]["family"]
    types = run_type(rows, doc)
    dtypes = ["all"] if family == "banks" else ordered(types)
    classes = [
        c
        for c in ("square", "rectangular", "aligned", "odd", "stride")
        if any(size_class(r["size"], family) == c for r in rows)
    ]
    drawn, total = fastest(rows, doc, MAX_LINES)
    reference = {v for v in drawn if any(is_reference(r, doc) for r in rows if r["variant"] == v)}
    from_tutorials = tutorial_steps(doc)
    styles = series_styles(family, drawn, reference, from_tutorials)
    scale, unit = display(rows)
    widths = [
        min(
            12.0,
            max(2.5, 1.1 * len({r["size"] for r in rows if size_class(r["size"], family) == c})),
        )
        for c in classes
    ]
    fig, axes = plt.subplots(
        len(dtypes),
        len(classes),
        figsize=(sum(widths) + 1.0, 4.4 * len(dtypes)),
        squeeze=False,
        gridspec_kw={"width_ratios": widths},
    )
    handles = {}
    for row_index, dtype in enumerate(dtypes):
        for col_index, cls in enumerate(classes):
            ax = axes[row_index][col_index]
            panel = [
                r
                for r, t in zip(rows, types)
                if size_class(r["size"], family) == cls and (dtype == "all" or t == dtype)
            ]
            sizes = sorted(ordered(r["size"] for r in panel), key=lambda s: work(s, family))
            for v in drawn:
                pts = sorted(
                    (sizes.index(r["size"]), r["throughput"] * scale)
                    for r in panel
                    if r["variant"] == v
                )
                if not pts:
                    continue
                xs, ys = zip(*pts)
                (line,) = ax.plot(xs, ys, label=v, markersize=5, **styles[v])
                handles.setdefault(v, line)
                predicted = [
                    (sizes.index(r["size"]), r.get("predicted_wavefronts"))
                    for r in panel
                    if r["variant"] == v
                ]
                if family == "banks" and v not in reference and all(p for _, p in predicted):
                    # One wavefront a clock: the analyzer predicts 1/wavefronts accesses a clock.
                    ax.plot(
                        [x for x, _ in predicted],
                        [1.0 / p for _, p in predicted],
                        ":",
                        color=styles[v]["color"],
                        linewidth=1,
                    )
            size_ticks(
                ax, sizes, turned=cls != "stride"
            )  # long size labels side by side would overlap
            ax.set_xlabel(SIZE_AXIS.get(family, "size"), fontsize=8)
            ax.set_yscale("log")
            log_ticks(ax)
            ax.grid(True, which="major", alpha=0.35)
            ax.grid(True, which="minor", alpha=0.12)
            ax.set_title(f"{cls}" + ("" if dtype == "all" else f", {dtype}"), fontsize=10)
            if col_index == 0:
                ax.set_ylabel(unit)
    shown = f" (the {MAX_LINES} fastest of {total} variants)" if total > MAX_LINES else ""
    legend = "black dashed: the reference"
    if any((family, v) in from_tutorials for v in drawn):
        legend += "; dash-dot, hollow: the tutorials' steps; solid: past them"
    if family == "banks":
        legend += "; dotted: the analyzer's prediction (1 / wavefronts)"
    fig.suptitle(
        f"smemlab {family} on {doc['device'].get('name', '?')}{shown}: median of "
        f"{doc.get('options', {}).get('reps', '?')} runs\n{legend}",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    # Beside the panels, never over them: the saved picture grows to hold it.
    fig.legend(
        list(handles.values()),
        list(handles.keys()),
        loc="upper left",
        bbox_to_anchor=(1.0, 0.92),
        fontsize=8,
        frameon=False,
    )
    fig.savefig(out, dpi=110, bbox_inches="tight")
    return out


# ---------------------------------------------------------------- each family's best

Best = collections.namedtuple("Best", "family dtype variant reference rows device")


def best_variants(docs):
    """Per (family, element type), in the order met: the variant with the best geometric-mean
    ratio among those verified at every size the reference ran, and its rows in size order."""
    groups, origin = {}, {}
    for path, doc in docs:
        rows = bench_rows(doc, path, None, several=True)
        for r, dtype in zip(rows, run_type(rows, doc)):
            key = (r["family"], dtype)
            if key[0] in NOT_RACED:
                continue
            if origin.setdefault(key, path) != path:
                raise Failure(
                    f"{path} and {origin[key]} both hold {key[0]} {key[1]}: give one of them"
                )
            groups.setdefault(key, (doc, []))[1].append(r)
    best = []
    for (family, dtype), (doc, rows) in groups.items():
        sizes = sorted(
            ordered(r["size"] for r in rows if is_reference(r, doc)), key=lambda s: work(s, family)
        )
        candidates = [
            v
            for v in ordered(r["variant"] for r in rows)
            if not v.startswith("cpu_")
            and (family, v) not in NOT_CANDIDATES
            and not any(r.get("library") for r in rows if r["variant"] == v)
            and not any(is_reference(r, doc) for r in rows if r["variant"] == v)
        ]
        complete = [
            v
            for v in candidates
            if {r["size"] for r in rows if r["variant"] == v and r["verified"]} >= set(sizes)
        ]
        if not complete:
            continue
        winner = max(complete, key=lambda v: geometric_mean(rows, v))
        chosen = sorted(
            (r for r in rows if r["variant"] == winner and r["size"] in sizes),
            key=lambda r: sizes.index(r["size"]),
        )
        reference = next(r["variant"] for r in rows if is_reference(r, doc))
        best.append(Best(family, dtype, winner, reference, chosen, doc["device"].get("name", "?")))
    if not best:
        raise Failure("no family has a variant verified at every size of its reference")
    return best


def print_best(best):
    for b in best:
        ratios = [r["vs_reference"] for r in b.rows]
        print(
            f"{b.family} {b.dtype}: {b.variant}, "
            f"{min(ratios):.2f}-{max(ratios):.2f}x {b.reference} "
            f"over {len(b.rows)} sizes (geometric mean {geometric_mean(b.rows, b.variant):.3f})"
        )


def plot_best(best, out):
    plt = pyplot()
    families = ordered(b.family for b in best)
    columns = min(2, len(families))
    grid_rows = math.ceil(len(families) / columns)
    fig, axes = plt.subplots(
        grid_rows, columns, figsize=(7.5 * columns, 4.3 * grid_rows + 0.6), squeeze=False
    )
    for ax in axes.flat[len(families) :]:
        ax.set_visible(False)
    devices = ordered(b.device for b in best)
    for ax, family in zip(axes.flat, families):
        lines = [b for b in best if b.family == family]
        labels = sorted(
            ordered(r["size"] for b in lines for r in b.rows), key=lambda s: work(s, family)
        )
        ax.axhline(
            1.0,
            color="black",
            linestyle="--",
            linewidth=1.6,
            label=f"the reference: {' / '.join(ordered(b.reference for b in lines))}",
        )
        for index, b in enumerate(lines):
            ax.plot(
                [labels.index(r["size"]) for r in b.rows],
                [r["vs_reference"] for r in b.rows],
                color=COLOURS[index],
                marker=MARKERS[index],
                linewidth=1.8,
                markersize=5,
                label=f"{b.variant} ({b.dtype})",
            )
        size_ticks(ax, labels, turned=True)
        ax.set_xlabel(SIZE_AXIS.get(family, "size"), fontsize=8)
        ax.set_yscale("log")
        low, high = ax.get_ylim()
        ax.set_ylim(min(low, 0.8), max(high, 1.25))
        log_ticks(ax)
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
        ax.set_title(family, fontsize=10)
        ax.legend(fontsize=8, loc="best")
        ax.set_ylabel("reference time / variant time", fontsize=9)
    fig.suptitle(
        f"Each family's fastest variant against its reference on {', '.join(devices)}: "
        "above 1.0, faster than the library",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out, dpi=110)
    return out


# ---------------------------------------------------------------- bank map


def lane_list(lanes):
    """0,16 or 0-31: runs of three or more consecutive lanes as a range."""
    parts, start = [], 0
    while start < len(lanes):
        end = start
        while end + 1 < len(lanes) and lanes[end + 1] == lanes[end] + 1:
            end += 1
        if end - start >= 2:
            parts.append(f"{lanes[start]}-{lanes[end]}")
        else:
            parts.extend(str(x) for x in lanes[start : end + 1])
        start = end + 1
    return ",".join(parts)


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def plot_bank_map(doc, path, out):
    plt = pyplot()
    from matplotlib.colors import ListedColormap

    phases = doc["map"].get("phases") if isinstance(doc.get("map"), dict) else None
    if not phases:
        raise Failure(f"{path} has no map: run `smemlab banks EXPR --map --format json`")
    warp = doc["map"].get("warp", 0)
    result = next((w for w in doc.get("warps", []) if w.get("warp") == warp), {})
    splits = [p.get("split") for p in result.get("phases", [])]
    rows_total = sum(len(p["wavefronts"]) for p in phases)
    # Room under each phase for its title and, where lanes share words, the list of them.
    fig, axes = plt.subplots(
        len(phases),
        1,
        figsize=(12, 1.6 + 0.36 * rows_total + 0.9 * len(phases)),
        squeeze=False,
        gridspec_kw={"height_ratios": [len(p["wavefronts"]) for p in phases]},
    )
    colours = ListedColormap(plt.get_cmap("tab20").colors)
    for index, (ax, phase) in enumerate(zip(axes[:, 0], phases)):
        grid = phase["wavefronts"]
        shared = {(b["wavefront"], b["bank"]): b["lanes"] for b in phase.get("broadcasts", [])}
        for w, banks in enumerate(grid):
            for b, lane in enumerate(banks):
                if lane is None:
                    continue
                lanes = shared.get((w, b))
                ax.add_patch(
                    plt.Rectangle(
                        (b, w),
                        1,
                        1,
                        facecolor=colours(w % 20),
                        alpha=0.85,
                        edgecolor="black" if lanes else "none",
                        linewidth=2 if lanes else 0,
                    )
                )
                # Both lanes of a pair; the first and how many more of a larger broadcast.
                text = (
                    str(lane)
                    if not lanes
                    else (
                        "\n".join(map(str, lanes))
                        if len(lanes) == 2
                        else f"{lane}\n+{len(lanes) - 1}"
                    )
                )
                ax.text(
                    b + 0.5,
                    w + 0.5,
                    text,
                    ha="center",
                    va="center",
                    fontsize=7 if not lanes else 6,
                    fontweight="bold" if lanes else "normal",
                )
        ax.set_xlim(0, 32)
        ax.set_ylim(len(grid), 0)
        ax.set_xticks([b + 0.5 for b in range(32)])
        ax.set_xticklabels(range(32), fontsize=7)
        ax.set_yticks([w + 0.5 for w in range(len(grid))])
        ax.set_yticklabels([f"w{w}" for w in range(len(grid))], fontsize=7)
        ax.set_xticks(range(33), minor=True)
        ax.set_yticks(range(len(grid) + 1), minor=True)
        ax.grid(True, which="minor", color="grey", linewidth=0.3)
        ax.tick_params(which="minor", length=0)
        ax.set_ylabel("wavefront", fontsize=8)
        groups = ordered(tuple(lanes) for lanes in shared.values())
        xlabel = "bank"
        if groups:
            listed = "; ".join(lane_list(list(g)) for g in groups)
            if len(listed) > 150:
                listed = listed[: listed.rfind(";", 0, 150)] + "; ..."
            xlabel += (
                "\noutlined: a word several lanes read, a broadcast (+n: n more lanes); "
                f"its lanes: {listed}"
            )
        ax.set_xlabel(xlabel, fontsize=8)
        if len(phases) > 1 or "lanes" in phase:
            first = phase.get("first_lane", 0)
            count = phase.get("lanes")
            title = f"lanes {first}-{first + count - 1}" if count else f"from lane {first}"
            split = splits[index] if index < len(splits) else None
            ax.set_title(title + (f", served apart: {split}" if split else ""), fontsize=9)
    ideal = result.get("ideal", "?")
    block = "x".join(str(b) for b in doc.get("block", []))
    fig.suptitle(
        f"'{doc['expression']}', block {block}, {doc['width']}-byte accesses, warp {warp}: "
        f"{plural(rows_total, 'wavefront')} for {ideal} ideal\n"
        "(each cell: the lane a bank serves in that "
        "wavefront; colour: the wavefront)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out, dpi=110)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "results",
        nargs="+",
        help="smemlab bench or smemlab banks JSON output (several with --best)",
    )
    ap.add_argument("--plot", metavar="OUT.png", help="write the picture to this file")
    ap.add_argument("--family", help="the family to show (needed when the file holds several)")
    ap.add_argument(
        "--summary", action="store_true", help="print the summary (the default without --plot)"
    )
    ap.add_argument("--markdown", action="store_true", help="print the summary as markdown tables")
    ap.add_argument(
        "--best",
        action="store_true",
        help="each family's fastest variant against its reference, from one or more files",
    )
    args = ap.parse_args()
    try:
        if args.best:
            if args.family or args.summary or args.markdown:
                raise Failure("--best takes no --family, --summary or --markdown")
            best = best_variants([(path, load(path)) for path in args.results])
            print_best(best)
            if args.plot:
                print(plot_best(best, args.plot))
            return 0
        if len(args.results) > 1:
            raise Failure(
                f"one results file at a time ({len(args.results)} given); several only with --best"
            )
        path = args.results[0]
        doc = load(path)
        if isinstance(doc, dict) and "map" in doc and "expression" in doc:
            if not args.plot:
                raise Failure(f"{path} is a bank map: give --plot OUT.png")
            print(plot_bank_map(doc, path, args.plot))
            return 0
        rows = bench_rows(doc, path, args.family)
        if args.summary or args.markdown or not args.plot:
            summary(doc, rows, markdown=args.markdown)
        if args.plot:
            print(plot_bench(doc, rows, args.plot))
    except Failure as e:
        print(f"plot_bench.py: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (head, less) stopped early: not an error
        sys.stderr.close()
        return 0
    except OSError as e:
        print(f"plot_bench.py: cannot write {args.plot}: {e.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
