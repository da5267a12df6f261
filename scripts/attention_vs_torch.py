#!/usr/bin/env python3
"""The attention steps against PyTorch's fused attention, in one run on one GPU.

Runs `smemlab bench --family attention --format json` for the sizes given, then times
torch.nn.functional.scaled_dot_product_attention on the same shapes (16,384 tokens a batch,
heads x head_dim = 2,048, head dims 128 and 64, causal and not; and 32 query heads over 8 kv heads
of 128, causal) with its FlashAttention-2 and
cuDNN backends, and prints TFLOP/s and the ratio of smemlab's fastest step to each, and to the
benchmark's own cuDNN row where smemlab was built with cuDNN (the system's cuDNN, through its graph
API; PyTorch brings its own copy, often another version). TFLOP/s counts
4 * batch * query heads * N^2 * head_dim a call, halved for a causal mask, as smemlab's rows do.
torch's `is_causal` aligns the mask to the top left; with q_len = kv_len, as here, it is the
same mask as smemlab's bottom-right one.

With --decode it runs `smemlab bench --family attention-decode` instead: the sizes are kv lengths
(default 4096,32768,131072), 1 and 16 query tokens over a cache of 262,144 tokens (batch =
262,144 / kv length up to 32,768, then one sequence), 32 query heads over 8 kv heads of 128, no
mask; it prints GB/s of K and V read, as smemlab's decode rows do.

--output writes the comparison and every smemlab row of the run as JSON.

  python3 scripts/attention_vs_torch.py build/smemlab [--sizes 1024,4096,16384] [--type bf16]
      [--decode] [--reps 20] [--variants tma_wgmma,overlapped] [--output rows.json]
"""
import argparse
import json
import subprocess
import sys

TOKENS = 16384
WIDTH = 2048
CACHE_TOKENS = 262144
LONGEST_SPLIT_CACHE = 32768


def smemlab_rows(binary, family, sizes, dtype, variants):
    command = [binary, "bench", "--family", family, "--type", dtype, "--size", ",".join(map(str, sizes)),
               "--format", "json", "--quiet"]
    if variants:
        command += ["--variant", variants]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"attention_vs_torch: smemlab bench exited with {run.returncode}: {run.stderr.strip()}")
    return json.loads(run.stdout)["rows"]


def torch_rate(torch, backend, n, head_dim, causal, dtype, reps, grouped=False, q_len=None):
    """TFLOP/s of a prefill case; with q_len, GB/s of K and V read by a decoding case (kv length n)."""
    from torch.nn.attention import sdpa_kernel
    decode = q_len is not None
    if decode:
        batch = CACHE_TOKENS // n if n <= LONGEST_SPLIT_CACHE else 1
    else:
        batch, q_len = max(1, TOKENS // n), n
    heads, kv_heads = (32, 8) if grouped else (WIDTH // head_dim, WIDTH // head_dim)
    gen = torch.Generator(device="cuda").manual_seed(n * head_dim)
    rand = lambda h, rows: (torch.rand(batch, h, rows, head_dim, device="cuda", dtype=dtype, generator=gen)
                            * 2 - 1)
    q, k, v = rand(heads, q_len), rand(kv_heads, n), rand(kv_heads, n)
    call = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                    enable_gqa=grouped)
    try:
        with sdpa_kernel([backend]):
            for _ in range(3):
                call()
            times = []
            for _ in range(reps):
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                call()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
    except RuntimeError as e:  # the backend does not take this shape or type here
        print(f"  {backend.name} at N={n}, head dim {head_dim}: {str(e).splitlines()[0]}", file=sys.stderr)
        return None
    times.sort()
    seconds = times[len(times) // 2] * 1e-3
    if decode:
        return 2.0 * k.numel() * k.element_size() / seconds / 1e9
    flops = 4.0 * batch * heads * n * n * head_dim / (2 if causal else 1)
    return flops / seconds / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("smemlab")
    parser.add_argument("--sizes")
    parser.add_argument("--type", default="bf16", choices=["bf16", "half"])
    parser.add_argument("--decode", action="store_true")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--variants", help="smemlab's steps to run (comma-separated; default: all)")
    parser.add_argument("--output")
    args = parser.parse_args()
    try:
        import torch
        from torch.nn.attention import SDPBackend
    except ImportError:
        sys.exit("attention_vs_torch: needs PyTorch with torch.nn.attention (2.3 or later)")
    if not torch.cuda.is_available():
        sys.exit("attention_vs_torch: no CUDA device visible to PyTorch")
    default_sizes = "4096,32768,131072" if args.decode else "1024,4096,16384"
    sizes = [int(s) for s in (args.sizes or default_sizes).split(",")]
    rows = smemlab_rows(args.smemlab, "attention-decode" if args.decode else "attention", sizes, args.type,
                        args.variants)
    dtype = torch.bfloat16 if args.type == "bf16" else torch.float16
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    unit, scale = ("GB/s", 1) if args.decode else ("TFLOP/s", 1000)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__} (its cuDNN {torch.backends.cudnn.version()}), "
          f"{args.type}; {unit}, "
          "smemlab's fastest step and its ratio to each backend")
    print(f"{'case':<22}{'N':>7}  {'best step':<20}{'smemlab':>8}{'flash':>8}{'cudnn':>8}{'/flash':>8}{'/cudnn':>8}"
          f"{'bench cudnn':>12}{'/bench':>8}")
    results = []
    if args.decode:
        cases = [(128, False, True, q_len) for q_len in (1, 16)]
    else:
        cases = [(hd, causal, False, None) for hd in (128, 64) for causal in (False, True)]
        cases.append((128, True, True, None))
    for head_dim, causal, grouped, q_len in cases:
        label = (f"{args.type} hd{head_dim}{' causal' if causal else ''}{' gqa' if grouped else ''}"
                 f"{f' q{q_len}' if q_len else ''}")
        for n in sizes:
            here = [r for r in rows if r["dtype"] == label and r["size"] == str(n) and r["verified"]]
            mine = [r for r in here if not r.get("library")]
            if not mine:
                continue
            bench_cudnn = next((r["throughput"] / scale for r in here if r["variant"] == "cudnn"), None)
            best = max(mine, key=lambda r: r["throughput"])
            ours = best["throughput"] / scale
            theirs = {name: torch_rate(torch, b, n, head_dim, causal, dtype, args.reps, grouped, q_len)
                      for name, b in backends.items()}
            ratio = lambda t: f"{ours / t:8.2f}" if t else f"{'-':>8}"
            cell = lambda t: f"{t:8.0f}" if t else f"{'-':>8}"
            print(f"{label:<22}{n:>7}  {best['variant']:<20}{ours:8.0f}{cell(theirs['flash'])}"
                  f"{cell(theirs['cudnn'])}{ratio(theirs['flash'])}{ratio(theirs['cudnn'])}"
                  f"{cell(bench_cudnn):>12}{ratio(bench_cudnn)}")
            key = "gbps" if args.decode else "tflops"
            results.append({"case": label, "n": n, "variant": best["variant"], f"smemlab_{key}": ours,
                            f"flash_{key}": theirs["flash"], f"cudnn_{key}": theirs["cudnn"],
                            f"bench_cudnn_{key}": bench_cudnn})
    if args.output:
        with open(args.output, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "torch_cudnn": torch.backends.cudnn.version(), "rows": results,
                       "smemlab_rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
