#!/usr/bin/env python3
"""Summaries and plots of smemlab's JSON output.

  plot_bench.py RESULTS.json [--family F] [--summary | --markdown] [--plot OUT.png]
  plot_bench.py BANKS.json --plot OUT.png

RESULTS.json is `smemlab bench --format json` output. Without --plot the script prints the
summary: one line per variant, one column per size, each cell "throughput (ratio to the
reference)"; --markdown prints it as a markdown table. --plot draws one panel per size class
(square, rectangular, odd: a dimension that is not a multiple of 32) and element type, the
reference in black, the tutorials' steps dashed with hollow markers, the steps past them solid.

BANKS.json is `smemlab banks EXPR --map --format json` output: --plot draws the banks of the
mapped warp, banks across and wavefronts down, each lane's cell coloured by its wavefront.

Every error is one line on stderr and exit status 2.
"""
import argparse
import json
import math
import sys

MAX_LINES = 16  # a sweep with more variants than this plots its fastest (matmul-tiles: 229)
SQUARE_RANK = {"matmul": 3, "matmul-tiles": 3, "tensor-matmul": 3, "transpose": 2}  # dimensions a single N stands for


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


def bench_rows(doc, path, family):
    rows = doc.get("rows") if isinstance(doc, dict) else None
    needed = ("family", "variant", "dtype", "size", "throughput", "throughput_unit", "vs_reference", "verified")
    if not isinstance(rows, list) or not all(isinstance(r, dict) and all(k in r for k in needed) for r in rows):
        raise Failure(f"{path} is not `smemlab bench --format json` output (rows with {', '.join(needed)})")
    families = ordered(r["family"] for r in rows)
    if family is None and len(families) > 1:
        raise Failure(f"{path} holds several families ({', '.join(families)}): choose one with --family")
    chosen = [r for r in rows if family is None or r["family"] == family]
    if not chosen:
        raise Failure(f"no rows for family {family!r} in {path} (it has {', '.join(families) or 'none'})")
    return chosen


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def dims(size, family):
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
    """Each row's element type as its run has it: the reference row's (banks rows differ per width)."""
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
    print(f"{device.get('name', '?')}, {family} {dtype}: {unit} (ratio to the reference); FAILED = failed verification")
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
        raise Failure("plotting needs matplotlib (pip install matplotlib); --summary works without it")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def fastest(rows, doc, limit):
    """The variants to draw: all, or the `limit` with the best geometric-mean ratio."""
    variants = [v for v in ordered(r["variant"] for r in rows) if not v.startswith("cpu_")]
    reference = [v for v in variants if any(is_reference(r, doc) for r in rows if r["variant"] == v)]
    others = [v for v in variants if v not in reference]
    if len(others) <= limit:
        return reference + others, len(others)

    def score(v):
        ratios = [r["vs_reference"] for r in rows if r["variant"] == v and r["vs_reference"] > 0]
        return math.exp(sum(math.log(x) for x in ratios) / len(ratios)) if ratios else 0.0

    return reference + sorted(others, key=score, reverse=True)[:limit], len(others)


def plot_bench(doc, rows, out):
    plt = pyplot()
    family = rows[0]["family"]
    types = run_type(rows, doc)
    dtypes = ["all"] if family == "banks" else ordered(types)
    classes = [c for c in ("square", "rectangular", "aligned", "odd", "stride")
               if any(size_class(r["size"], family) == c for r in rows)]
    drawn, total = fastest(rows, doc, MAX_LINES)
    from_tutorials = tutorial_steps(doc)
    scale, unit = display(rows)
    # Distinct colours within each group; the two groups also differ in line and marker.
    tutorial_colours = iter(plt.get_cmap("Dark2").colors * 2)
    fast_colours = iter(plt.get_cmap("tab10").colors * 2)
    colour = {v: next(tutorial_colours if (family, v) in from_tutorials else fast_colours) for v in drawn}
    from matplotlib.ticker import FuncFormatter
    widths = [min(12.0, max(2.5, 1.1 * len({r["size"] for r in rows if size_class(r["size"], family) == c})))
              for c in classes]
    fig, axes = plt.subplots(len(dtypes), len(classes), figsize=(sum(widths) + 3.5, 4.2 * len(dtypes)),
                             squeeze=False, gridspec_kw={"width_ratios": widths})
    handles = {}
    for row_index, dtype in enumerate(dtypes):
        for col_index, cls in enumerate(classes):
            ax = axes[row_index][col_index]
            panel = [r for r, t in zip(rows, types)
                     if size_class(r["size"], family) == cls and (dtype == "all" or t == dtype)]
            sizes = sorted(ordered(r["size"] for r in panel), key=lambda s: work(s, family))
            for v in drawn:
                pts = sorted((sizes.index(r["size"]), r["throughput"] * scale) for r in panel if r["variant"] == v)
                if not pts:
                    continue
                xs, ys = zip(*pts)
                reference = any(is_reference(r, doc) for r in panel if r["variant"] == v)
                if reference:
                    style = dict(color="black", linestyle="--", linewidth=2.6, marker="s", zorder=5)
                elif (family, v) in from_tutorials:
                    style = dict(color=colour[v], linestyle="-.", linewidth=1.2, marker="o",
                                 markerfacecolor="white")
                else:
                    style = dict(color=colour[v], linestyle="-", linewidth=1.8, marker="D")
                (line,) = ax.plot(xs, ys, label=v, markersize=5, **style)
                handles.setdefault(v, line)
                predicted = [(sizes.index(r["size"]), r.get("predicted_wavefronts")) for r in panel if r["variant"] == v]
                if family == "banks" and not reference and all(p for _, p in predicted):
                    # One wavefront a clock: the analyzer predicts 1/wavefronts accesses a clock.
                    ax.plot([x for x, _ in predicted], [1.0 / p for _, p in predicted], ":",
                            color=style["color"], linewidth=1)
            step = max(1, len(sizes) // 16)
            ax.set_xticks(range(0, len(sizes), step))
            turned = cls != "stride"  # long size labels side by side would overlap
            ax.set_xticklabels(sizes[::step], rotation=30 if turned else 0, ha="right" if turned else "center",
                               fontsize=8)
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
            ax.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: f"{y:g}" if f"{y:g}"[0] in "25" else ""))
            ax.grid(True, which="both", alpha=0.25)
            ax.set_title(f"{cls}" + ("" if dtype == "all" else f", {dtype}"), fontsize=10)
            if col_index == 0:
                ax.set_ylabel(unit)
    shown = f" (the {MAX_LINES} fastest of {total} variants)" if total > MAX_LINES else ""
    legend = "black dashed: the reference"
    if any((family, v) in from_tutorials for v in drawn):
        legend += "; dash-dot, hollow: the tutorials' steps; solid: past them"
    if family == "banks":
        legend += "; dotted: the analyzer's prediction (1 / wavefronts)"
    fig.suptitle(f"smemlab {family} on {doc['device'].get('name', '?')}{shown}: median of "
                 f"{doc.get('options', {}).get('reps', '?')} runs; {legend}", fontsize=10)
    fig.legend(list(handles.values()), list(handles.keys()), loc="center right", fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0, 1 - 2.6 / (sum(widths) + 3.5), 0.95))
    fig.savefig(out, dpi=110)
    return out


# ---------------------------------------------------------------- bank map


def plot_bank_map(doc, path, out):
    plt = pyplot()
    from matplotlib.colors import ListedColormap

    phases = doc["map"].get("phases") if isinstance(doc.get("map"), dict) else None
    if not phases:
        raise Failure(f"{path} has no map: run `smemlab banks EXPR --map --format json`")
    rows_total = sum(len(p["wavefronts"]) for p in phases)
    fig, axes = plt.subplots(len(phases), 1, figsize=(12, 1.3 + 0.36 * rows_total + 0.5 * len(phases)),
                             squeeze=False, gridspec_kw={"height_ratios": [len(p["wavefronts"]) for p in phases]})
    colours = ListedColormap(plt.get_cmap("tab20").colors)
    for ax, phase in zip(axes[:, 0], phases):
        grid = phase["wavefronts"]
        for w, banks in enumerate(grid):
            for b, lane in enumerate(banks):
                if lane is None:
                    continue
                ax.add_patch(plt.Rectangle((b, w), 1, 1, color=colours(w % 20), alpha=0.85))
                ax.text(b + 0.5, w + 0.5, str(lane), ha="center", va="center", fontsize=7)
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
        lanes = [lane for banks in grid for lane in banks if lane is not None]
        ax.set_ylabel(f"lanes {min(lanes)}-{max(lanes)}" if lanes else "", fontsize=8)
    axes[-1][0].set_xlabel("bank")
    warp = doc["map"].get("warp", 0)
    ideal = next((w["ideal"] for w in doc.get("warps", []) if w.get("warp") == warp), "?")
    block = "x".join(str(b) for b in doc.get("block", []))
    fig.suptitle(f"'{doc['expression']}', block {block}, {doc['width']}-byte accesses, warp {warp}: "
                 f"{rows_total} wavefronts for {ideal} ideal\n(each cell: the lane a bank serves in that wavefront; "
                 "colour: the wavefront)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    fig.savefig(out, dpi=110)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="smemlab bench or smemlab banks JSON output")
    ap.add_argument("--plot", metavar="OUT.png", help="write the picture to this file")
    ap.add_argument("--family", help="the family to show (needed when the file holds several)")
    ap.add_argument("--summary", action="store_true", help="print the summary (the default without --plot)")
    ap.add_argument("--markdown", action="store_true", help="print the summary as markdown tables")
    args = ap.parse_args()
    try:
        doc = load(args.results)
        if isinstance(doc, dict) and "map" in doc and "expression" in doc:
            if not args.plot:
                raise Failure(f"{args.results} is a bank map: give --plot OUT.png")
            print(plot_bank_map(doc, args.results, args.plot))
            return 0
        rows = bench_rows(doc, args.results, args.family)
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
