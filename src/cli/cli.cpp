#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "smemlab/banks.hpp"
#include "smemlab/bench.hpp"
#include "smemlab/explain.hpp"
#include "smemlab/device_buffer.hpp"
#include "smemlab/device_memory.hpp"
#include "smemlab/reduce.hpp"
#include "smemlab/shape.hpp"
#include "smemlab/device_info.hpp"
#include "smemlab/error.hpp"
#include "smemlab/registry.hpp"
#include "smemlab/report.hpp"

namespace smemlab::cli {
namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct SumOptions {
  double value = 1.23;
  std::string count = "100000000";
  std::string type = "float";
};

struct BanksOptions {
  std::string expression;
  std::vector<int> block{32};
  int width = 4;
  bool bytes = false;
  long long base = 0;
  bool map = false;
  int warp = 0;
  std::string format = "table";
};

struct ExplainOptions {
  std::string variant;
  std::string size;
  std::string type = "float";
  std::string format = "table";
};

struct Options {
  int device = 0;
  SumOptions sum;
  BanksOptions banks;
  ExplainOptions explain;
  std::vector<std::string> list_families;
  BenchRequest bench;
  std::string format = "table";
  std::string output;
  bool quiet = false;
};

// Fails before any device work when the output file could not be created.
void check_output_path(const std::string& path) {
  if (path.empty()) return;
  const std::filesystem::path p(path);
  const auto dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw UsageError(fmt::format("--output {}: directory '{}' does not exist", path, dir.string()));
  if (std::filesystem::is_directory(p, ec))
    throw UsageError(fmt::format("--output {}: is a directory", path));
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("--output {}: directory '{}' is not writable", path, dir.string()));
}

// Written beside the target and renamed over it: a reader never sees half a file.
void write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp{}", path, getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error(fmt::format("could not write {}", tmp));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("could not write {}: {}", path, ec.message()));
  }
}

// No GPU is a runtime failure (exit 1), not bad input; a wrong --device ordinal is bad input,
// reported by query_device.
void require_device() {
  if (device_count() == 0) throw CudaError("no CUDA device found: this command needs a GPU");
}

int cmd_list(const Options& opt, std::ostream& out) {
  for (const auto& f : opt.list_families) (void)find_family(f);
  // Without --family: the registry, as the families of a default run hold it; a named
  // family may be one outside it (the matmul-tiles sweep).
  std::vector<VariantInfo> variants;
  for (const BenchFamily* f : families()) {
    const bool named = std::find(opt.list_families.begin(), opt.list_families.end(), f->name()) !=
                       opt.list_families.end();
    if (opt.list_families.empty() ? !f->in_default_run() : !named) continue;
    for (const auto& v : f->variants()) variants.push_back(v);
  }
  std::size_t width = 0;
  for (const auto& v : variants) width = std::max(width, v.id().size());
  for (const auto& v : variants) out << fmt::format("{:<{}}  {}\n", v.id(), width, v.description);
  return 0;
}

int cmd_info(const Options& opt, std::ostream& out) {
  require_device();
  out << describe(query_device(opt.device));
  return 0;
}

int cmd_bench(const Options& opt, std::ostream& out, std::ostream& err) {
  // Everything the user typed is checked before the device is touched.
  const BenchPlan plan = plan_bench(opt.bench);
  const Format format = parse_format(opt.format);
  check_output_path(opt.output);
  require_device();
  const DeviceInfo device = query_device(opt.device);
  check_fits(plan, device);

  const ProgressFn progress = [&](std::string_view message) {
    if (!opt.quiet) err << "smemlab: " << message << std::endl;
  };
  const BenchReport report = run_bench(plan, opt.device, progress);
  const std::string text = render(report, format);
  if (opt.output.empty()) {
    out << text;
  } else {
    write_atomically(opt.output, text);
  }
  if (!report.all_verified()) {
    const auto failed = std::count_if(report.rows.begin(), report.rows.end(),
                                      [](const BenchRow& r) { return !r.verified; });
    err << fmt::format("smemlab: {} result(s) failed verification\n", failed);
    return kExitFailure;
  }
  return 0;
}

// Every reduction variant on n copies of one value, beside the exact sum of the stored values:
// seed 001's "big eats small" (100,000,000 x 1.23 in float: 33554432) as a table.
template <class T>
int sum_constant(const Options& opt, std::int64_t count, std::ostream& out) {
  const auto n = static_cast<std::size_t>(count);
  const T stored = static_cast<T>(opt.sum.value);
  const double exact = static_cast<double>(stored) * static_cast<double>(n);  // exact to ~1e-16
  require_device();
  const DeviceInfo device = query_device(opt.device);
  if (n * sizeof(T) * 2 + (std::size_t{256} << 20) > device.global_mem_bytes)
    throw UsageError(fmt::format("--count {}: the array does not fit in {}", n, device.name));
  SMEMLAB_CUDA_CHECK(cudaSetDevice(opt.device));
  DeviceBuffer<T> in(n);
  DeviceBuffer<T> result(1);
  fill_value(in.data(), n, stored, nullptr);
  std::vector<T> host(n, stored);
  std::size_t workspace_bytes = 0;
  for (const auto& v : reduce::variants())
    if (reduce::ops<T>(v).device != nullptr)
      workspace_bytes = std::max(workspace_bytes, reduce::ops<T>(v).workspace_bytes(n));
  DeviceBuffer<unsigned char> workspace(workspace_bytes);

  out << fmt::format("{} x {} ({} stores {:.17g}); exact sum of the stored values: {:.17g}\n", n,
                     opt.sum.value, opt.sum.type, static_cast<double>(stored), exact);
  out << fmt::format("{:<24}{:>26}{:>16}\n", "variant", "sum", "relative error");
  for (const auto& v : reduce::variants()) {
    const auto& o = reduce::ops<T>(v);
    if (!o.exists()) continue;
    T got{};
    if (o.host != nullptr) {
      got = o.host(host.data(), n);
    } else {
      SMEMLAB_CUDA_CHECK(cudaMemset(workspace.data(), 0, workspace.bytes()));
      result.poison(nullptr);
      reduce::sum(v, in.data(), n, result.data(), workspace.data(), nullptr);
      std::vector<T> back(1);
      result.download(back, nullptr);
      got = back[0];
    }
    const double error = exact == 0.0 ? std::abs(static_cast<double>(got))
                                      : std::abs((static_cast<double>(got) - exact) / exact);
    out << fmt::format("{:<24}{:>26.17g}{:>16.2e}\n", v.info.name, static_cast<double>(got), error);
  }
  return 0;
}

std::string join_ints(const std::vector<int>& v, std::size_t most) {
  const auto shown = std::vector<int>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(most, v.size())));
  return fmt::format("{}{}", fmt::join(shown, ","), v.size() > most ? fmt::format(",... ({} lanes)", v.size()) : "");
}

// `smemlab banks`: the analyzer on one access pattern; CPU only.
int cmd_banks(const Options& opt, std::ostream& out) {
  const BanksOptions& b = opt.banks;
  if (b.block.empty() || b.block.size() > 3)
    throw UsageError("--block takes X, X,Y or X,Y,Z");
  banks::Access access{banks::Expression::parse(b.expression),
                       {b.block[0], b.block.size() > 1 ? b.block[1] : 1, b.block.size() > 2 ? b.block[2] : 1},
                       b.width, b.bytes, b.base};
  if (b.format != "table" && b.format != "json")
    throw UsageError(fmt::format("unknown format '{}' (table, json)", b.format));
  const banks::Analysis analysis = banks::analyze(access);
  if (b.map && (b.warp < 0 || b.warp >= static_cast<int>(analysis.warps.size())))
    throw UsageError(fmt::format("--warp {}: the block has {} warp(s)", b.warp, analysis.warps.size()));

  if (b.format == "json") {
    nlohmann::json warps = nlohmann::json::array();
    for (const auto& w : analysis.warps) {
      nlohmann::json collisions = nlohmann::json::array();
      for (const auto& c : w.collisions)
        collisions.push_back({{"bank", c.bank}, {"lanes", c.lanes}, {"words", c.words}});
      warps.push_back({{"warp", w.warp}, {"lanes", w.active_lanes}, {"wavefronts", w.wavefronts},
                       {"ideal", w.ideal}, {"ways", w.ways}, {"collisions", collisions}});
    }
    const nlohmann::json doc{{"expression", b.expression},
                             {"block", {access.block.x, access.block.y, access.block.z}},
                             {"width", b.width},
                             {"bytes", b.bytes},
                             {"base", b.base},
                             {"warps", warps},
                             {"summary", {{"warps", analysis.warps.size()},
                                          {"wavefronts", analysis.wavefronts()},
                                          {"ideal", analysis.ideal()}}}};
    out << doc.dump(2) << "\n";
    return 0;
  }
  out << fmt::format("'{}' ({}), block {}x{}x{}, {}-byte accesses: {} wavefronts for {} ideal ({:.2f}x)\n",
                     b.expression, b.bytes ? "byte address" : "element index", access.block.x,
                     access.block.y, access.block.z, b.width, analysis.wavefronts(), analysis.ideal(),
                     static_cast<double>(analysis.wavefronts()) / static_cast<double>(analysis.ideal()));
  out << fmt::format("{:>5} {:>6} {:>11} {:>6} {:>5}  {}\n", "warp", "lanes", "wavefronts", "ideal", "ways",
                     "banks asked for more than one word");
  for (const auto& w : analysis.warps) {
    std::string detail;
    for (std::size_t i = 0; i < w.collisions.size() && i < 3; ++i)
      detail += fmt::format("{}bank {}: lanes {}", i ? "; " : "", w.collisions[i].bank, join_ints(w.collisions[i].lanes, 8));
    if (w.collisions.size() > 3) detail += fmt::format("; +{} more banks", w.collisions.size() - 3);
    out << fmt::format("{:>5} {:>6} {:>11} {:>6} {:>5}  {}\n", w.warp, w.active_lanes, w.wavefronts, w.ideal,
                       w.ways, detail.empty() ? "-" : detail);
  }
  if (b.map) {
    out << fmt::format("\nwarp {}: banks across, wavefronts down, the lane served in each\n", b.warp);
    out << banks::render_map(analysis.warps[static_cast<std::size_t>(b.warp)], b.width);
  }
  return 0;
}

// Why a variant has no access model, in words.
std::string unmodelled(const VariantInfo& v) {
  if (v.reference) return "a vendor library: its kernels are not modelled";
  if (v.name.starts_with("cpu_")) return "runs on the CPU";
  if (v.smem == SmemKind::none) return "uses no shared memory";
  if (v.family == "matmul" && v.name == "autotuned")
    return "its tile configuration is chosen on the device, by shape; each configuration's "
           "measured counters are in docs/perf/sgemm.md";
  return "uses shared memory only to combine a few per-warp sums; not modelled";
}

// `smemlab explain family/variant`: the model of a variant at one size; CPU only.
int cmd_explain(const Options& opt, std::ostream& out) {
  const ExplainOptions& e = opt.explain;
  const auto slash = e.variant.find('/');
  if (slash == std::string::npos) throw UsageError(fmt::format("explain takes family/variant, not '{}'", e.variant));
  const BenchFamily& family = find_family(std::string_view(e.variant).substr(0, slash));
  const std::string name = e.variant.substr(slash + 1);
  std::optional<VariantInfo> info;
  for (const auto& v : family.variants())
    if (v.name == name) info = v;
  if (!info) throw UsageError(fmt::format("unknown variant '{}' (see 'smemlab list')", e.variant));
  if (e.type != "float" && e.type != "double") throw UsageError(fmt::format("unknown type '{}' (float, double)", e.type));
  if (e.format != "table" && e.format != "json") throw UsageError(fmt::format("unknown format '{}' (table, json)", e.format));
  const std::string size_text = e.size.empty() ? explain::default_size(family.name()) : e.size;
  const Shape shape = family.canonical(parse_shape(size_text));
  const std::string model_family = e.type == "double" && family.name() != "matmul" && family.name() != "banks"
                                       ? std::string(family.name()) + "-double"
                                       : std::string(family.name());
  const auto model = explain::model(model_family, name, shape);

  nlohmann::json doc{{"variant", info->id()},
                     {"description", info->description},
                     {"technique", info->technique},
                     {"shared_memory", smem_kind_name(info->smem)},
                     {"size", shape.label()},
                     {"type", e.type}};
  std::string text = fmt::format("{}: {}\ntechnique:     {}\n", info->id(), info->description, info->technique);
  if (!model) {
    doc["model"] = nullptr;
    doc["why_no_model"] = unmodelled(*info);
    text += fmt::format("shared memory: {}; {}\n", smem_kind_name(info->smem), unmodelled(*info));
  } else {
    const explain::Prediction p = explain::predict(*model);
    constexpr std::size_t kSmemPerSm = 228 * 1024;  // Hopper; 1 KiB of it is reserved per block
    const int threads = model->block.threads();
    const std::size_t by_smem = model->smem_bytes == 0 ? 32 : kSmemPerSm / (model->smem_bytes + 1024);
    const int by_threads = 2048 / threads;
    nlohmann::json accesses = nlohmann::json::array();
    text += fmt::format("shared memory: {}, {} bytes per block of {}x{}x{} threads: {} blocks per SM fit "
                        "(shared memory: {}, threads: {}; Hopper, 228 KiB per SM)\n",
                        model->dynamic_smem ? "dynamic" : "static", model->smem_bytes, model->block.x,
                        model->block.y, model->block.z, std::min<std::size_t>(by_smem, static_cast<std::size_t>(by_threads)),
                        by_smem, by_threads);
    text += fmt::format("at {} ({}): {:.0f} blocks\n", shape.label(), e.type, model->blocks);
    text += fmt::format("  {:<52} {:>2} {:>5} {:>10} {:>10} {:>14}\n", "shared-memory instruction", "op", "bytes",
                        "per block", "wavefr/warp", "total wavefr");
    for (const auto& a : model->accesses) {
      const banks::Analysis an = banks::analyze(a.access);
      const double per_warp = static_cast<double>(an.wavefronts()) / static_cast<double>(an.warps.size());
      const double total = static_cast<double>(an.wavefronts()) * a.per_block * model->blocks;
      text += fmt::format("  {:<52} {:>2} {:>5} {:>10.0f} {:>10.2f} {:>14.0f}\n", a.what.substr(0, 52), a.op,
                          a.access.width, a.per_block, per_warp, total);
      text += fmt::format("      {}  (block {}x{}x{}, ideal {:.2f}/warp)\n", a.access.expression.text(),
                          a.access.block.x, a.access.block.y, a.access.block.z,
                          static_cast<double>(an.ideal()) / static_cast<double>(an.warps.size()));
      accesses.push_back({{"what", a.what}, {"op", a.op}, {"expression", a.access.expression.text()},
                          {"block", {a.access.block.x, a.access.block.y, a.access.block.z}},
                          {"width", a.access.width}, {"per_block", a.per_block},
                          {"wavefronts_per_warp", per_warp}, {"total_wavefronts", total}});
    }
    text += fmt::format("predicted shared wavefronts: loads {} (ideal {}), stores {} (ideal {})\n",
                        p.ld_wavefronts, p.ld_ideal, p.st_wavefronts, p.st_ideal);
    if (model->global_bytes > 0)
      text += fmt::format("global memory: {}; {:.3g} bytes requested", model->traffic, model->global_bytes);
    else
      text += fmt::format("global memory: {}", model->traffic);
    if (model->flops > 0 && model->global_bytes > 0)
      text += fmt::format(", {:.3g} flops: {:.3g} flop/byte", model->flops, model->flops / model->global_bytes);
    text += "\n";
    if (!model->notes.empty()) text += fmt::format("notes: {}\n", model->notes);
    doc["model"] = {{"block", {model->block.x, model->block.y, model->block.z}},
                    {"smem_bytes", model->smem_bytes},
                    {"dynamic_smem", model->dynamic_smem},
                    {"blocks", model->blocks},
                    {"accesses", accesses},
                    {"predicted", {{"ld_wavefronts", p.ld_wavefronts}, {"ld_ideal", p.ld_ideal},
                                   {"st_wavefronts", p.st_wavefronts}, {"st_ideal", p.st_ideal}}},
                    {"global_bytes", model->global_bytes},
                    {"flops", model->flops},
                    {"traffic", model->traffic},
                    {"notes", model->notes}};
  }
  out << (e.format == "json" ? doc.dump(2) + "\n" : text);
  return 0;
}

int cmd_sum(const Options& opt, std::ostream& out) {
  const Shape count = parse_shape(opt.sum.count);
  if (count.dims.size() != 1) throw UsageError(fmt::format("--count {}: one number", opt.sum.count));
  if (!std::isfinite(opt.sum.value)) throw UsageError("--value must be a finite number");
  if (opt.sum.type == "float") return sum_constant<float>(opt, count.dims[0], out);
  if (opt.sum.type == "double") return sum_constant<double>(opt, count.dims[0], out);
  throw UsageError(fmt::format("unknown type '{}' (float, double)", opt.sum.type));
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  Options opt;
  CLI::App app{"smemlab: shared-memory CUDA kernels, verified, measured and explained", "smemlab"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--device", opt.device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);

  auto* list = app.add_subcommand("list", "List the registered kernel variants");
  list->add_option("--family", opt.list_families, "Only these families")->delimiter(',');

  auto* info = app.add_subcommand("info", "Describe the GPU: SMs, clocks, memory, peaks");

  auto* bench = app.add_subcommand("bench", "Verify and time variants against the reference");
  bench->add_option("--family", opt.bench.families, "Families to run (comma-separated)")
      ->delimiter(',');
  bench->add_option("--variant", opt.bench.variants, "Variants: name or family/name")
      ->delimiter(',');
  bench->add_option("--size", opt.bench.sizes, "Sizes: N, RxC or MxNxK; several allowed")
      ->delimiter(',');
  bench->add_option("--type", opt.bench.dtypes, "Element types: float, double (default: each family's first)")
      ->delimiter(',');
  bench->add_option("--reps", opt.bench.options.reps, "Timed runs (median reported)")
      ->capture_default_str();
  bench->add_option("--warmup", opt.bench.options.warmup, "Untimed runs first")
      ->capture_default_str();
  bench->add_option("--format", opt.format, "table, csv, json or markdown")->capture_default_str();
  bench->add_option("--output", opt.output, "Write the results to this file");
  bench->add_flag("--quiet", opt.quiet, "No progress on stderr");

  auto* sum = app.add_subcommand(
      "sum", "Every reduction variant on COUNT copies of VALUE, beside the exact sum");
  sum->add_option("--value", opt.sum.value, "The value repeated")->capture_default_str();
  sum->add_option("--count", opt.sum.count, "How many copies (N or 2^K)")->capture_default_str();
  sum->add_option("--type", opt.sum.type, "float or double")->capture_default_str();

  auto* banks_cmd = app.add_subcommand(
      "banks", "Shared-memory bank conflicts of an access pattern (CPU only; no GPU needed)");
  banks_cmd->add_option("expression", opt.banks.expression,
                        "Element index (or byte address with --bytes) as an expression of tx, ty, tz")
      ->required();
  banks_cmd->add_option("--block", opt.banks.block, "Block shape X[,Y[,Z]]")->delimiter(',')->capture_default_str();
  banks_cmd->add_option("--width", opt.banks.width, "Bytes per access: 1, 2, 4, 8, 16")->capture_default_str();
  banks_cmd->add_flag("--bytes", opt.banks.bytes, "The expression is a byte address");
  banks_cmd->add_option("--base", opt.banks.base, "Byte offset added to every address");
  banks_cmd->add_flag("--map", opt.banks.map, "Draw the banks of one warp (seed 001's figure)");
  banks_cmd->add_option("--warp", opt.banks.warp, "Which warp --map draws")->capture_default_str();
  banks_cmd->add_option("--format", opt.banks.format, "table or json")->capture_default_str();

  auto* explain_cmd = app.add_subcommand(
      "explain", "What a variant does to shared and global memory, predicted (CPU only)");
  explain_cmd->add_option("variant", opt.explain.variant, "family/variant (see 'smemlab list')")->required();
  explain_cmd->add_option("--size", opt.explain.size, "Problem size (default: the family's middle size)");
  explain_cmd->add_option("--type", opt.explain.type, "float or double")->capture_default_str();
  explain_cmd->add_option("--format", opt.explain.format, "table or json")->capture_default_str();

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return 0;
    } catch (const CLI::ParseError& e) {
      throw UsageError(e.what());
    }
    if (*list) return cmd_list(opt, out);
    if (*info) return cmd_info(opt, out);
    if (*sum) return cmd_sum(opt, out);
    if (*banks_cmd) return cmd_banks(opt, out);
    if (*explain_cmd) return cmd_explain(opt, out);
    return cmd_bench(opt, out, err);
  } catch (const UsageError& e) {
    err << "smemlab: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "smemlab: error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace smemlab::cli
