// The smemlab command: parses the command line and hands each subcommand to the module that
// does it (bench/, banks, explain/). Nothing here computes or renders.
#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <type_traits>

#include "bench/bench.hpp"
#include "bench/families.hpp"
#include "bench/registry.hpp"
#include "bench/listing.hpp"
#include "bench/report.hpp"
#include "cli/arguments.hpp"
#include "cli/progress_bar.hpp"
#include "core/device_info.hpp"
#include "core/text.hpp"
#include "explain/explain.hpp"
#include "explain/measure.hpp"
#include "smemlab/banks.hpp"
#include "smemlab/error.hpp"
#include "smemlab/shape.hpp"

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
  std::vector<std::string> block{"32"};
  int width = 4;
  std::string instruction = "ld";
  int bits = 32;
  bool bytes = false;
  long long base = 0;
  int swizzle = 0;
  bool map = false;
  int warp = 0;
  std::string format = "table";
};

struct ExplainOptions {
  std::string variant;
  std::string size;
  std::string type;  // empty: the variant's first type
  std::string arch;
  std::string format = "table";
  bool measure = false;
  bool all = false;
};

struct Options {
  int device = 0;
  SumOptions sum;
  BanksOptions banks;
  ExplainOptions explain;
  std::vector<std::string> list_families;
  bool list_names = false;
  std::string help_topic;  // `smemlab help bench`
  BenchRequest bench;  // its lists as typed until split_list
  std::string format;  // empty: the summary on standard output, or the file's own format
  std::string output;
  bool quiet = false;
};

// Comma-separated lists, as typed (--size 1024,2048 or --size 1024 --size 2048): an empty
// item is a mistake, not something to skip.
std::vector<std::string> split_list(const std::vector<std::string>& typed, std::string_view option) {
  std::vector<std::string> items;
  for (const auto& text : typed) {
    std::size_t pos = 0;
    while (true) {
      const std::size_t end = std::min(text.find(',', pos), text.size());
      if (end == pos) throw UsageError(fmt::format("{} '{}': an empty item", option, text));
      items.push_back(text.substr(pos, end - pos));
      if (end == text.size()) break;
      pos = end + 1;
    }
  }
  return items;
}

// What the options take, where a message about a missing or unreadable value says it.
constexpr std::string_view kCountTakes = "a positive whole number, written N or 2^K";
constexpr std::string_view kExpressionTakes =
    "an access expression of tx, ty, tz, such as 'tx*32+ty' (element index; --bytes for byte "
    "addresses)";

std::string family_names() {
  std::vector<std::string_view> names;
  for (const BenchFamily* f : families()) names.push_back(f->name());
  return fmt::format("{}", fmt::join(names, ", "));
}

// `text` as a T, all of it; otherwise "--reps 'abc': a positive integer".
template <class T>
T read_number(const std::string& text, std::string_view option, std::string_view takes) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  bool read = ec == std::errc() && end == text.data() + text.size();
  if constexpr (std::is_floating_point_v<T>) read = read && std::isfinite(value);
  if (!read) throw UsageError(fmt::format("{} '{}': {}", option, text, takes));
  return value;
}

// Options are added with what they take (ValueHints). Numbers are read by smemlab, not by the
// parser, so that every message about them is smemlab's.
class OptionAdder {
 public:
  explicit OptionAdder(ValueHints& hints) : hints_(hints) {}

  CLI::Option* text(CLI::App& app, const std::string& name, std::string& value,
                    const std::string& help, std::string_view takes) {
    return hint(app.add_option(name, value, help), takes);
  }

  // Comma-separated and repeatable: --size 1024,2048 or --size 1024 --size 2048.
  CLI::Option* list(CLI::App& app, const std::string& name, std::vector<std::string>& items,
                    const std::string& help, std::string_view takes) {
    // One argument each time (allow_extra_args(false) also leaves a following `--` alone).
    return hint(app.add_option(name, items, help)
                    ->expected(1)
                    ->allow_extra_args(false)
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll),
                takes);
  }

  template <class T>
  CLI::Option* number(CLI::App& app, const std::string& name, T& value, const std::string& help,
                      std::string_view takes) {
    auto* option = app.add_option_function<std::string>(
        name,
        [&value, name, takes = std::string(takes)](const std::string& text) {
          value = read_number<T>(text, name, takes);
        },
        help);
    option->type_name(std::is_integral_v<T> ? "INT" : "NUMBER")
        ->default_str(fmt::format("{}", value));
    return hint(option, takes);
  }

 private:
  CLI::Option* hint(CLI::Option* option, std::string_view takes) {
    hints_.set(option, std::string(takes));
    return option;
  }
  ValueHints& hints_;
};

DType parse_type(const std::string& name) {
  const auto type = parse_dtype(name);
  if (!type) throw UsageError(fmt::format("unknown type '{}' ({})", name, kDTypeNames));
  return *type;
}

void require_format(const std::string& format, std::initializer_list<std::string_view> known) {
  if (std::find(known.begin(), known.end(), format) == known.end())
    throw UsageError(fmt::format("unknown format '{}' ({})", format, fmt::join(known, ", ")));
}

// No GPU is a runtime failure (exit 1), not bad input; a wrong --device ordinal is bad input,
// reported by query_device.
DeviceInfo require_device(int ordinal) {
  if (device_count() == 0) throw CudaError("no CUDA device found: this command needs a GPU");
  return query_device(ordinal);
}

int cmd_list(Options opt, std::ostream& out) {
  opt.list_families = split_list(opt.list_families, "--family");
  // Without --family: the families of a default run; a named family may be one outside it
  // (the matmul-tiles sweep).
  std::vector<const BenchFamily*> shown;
  for (const auto& f : opt.list_families) shown.push_back(&find_family(f));
  out << (opt.list_names ? list_names(shown) : render_list(shown));
  return 0;
}

int cmd_info(const Options& opt, std::ostream& out) {
  out << describe(require_device(opt.device));
  return 0;
}

int cmd_bench(const Options& opt, std::ostream& out, std::ostream& err, bool err_is_terminal) {
  // Everything the user typed is checked before the device is touched.
  BenchRequest request = opt.bench;
  request.families = split_list(request.families, "--family");
  request.variants = split_list(request.variants, "--variant");
  request.sizes = split_list(request.sizes, "--size");
  request.dtypes = split_list(request.dtypes, "--type");
  const BenchPlan plan = plan_bench(request);
  const Format format = !opt.format.empty() ? parse_format(opt.format)
                        : opt.output.empty()   ? Format::summary
                                               : format_for_file(opt.output);
  check_writable(opt.output);
  const DeviceInfo device = require_device(opt.device);
  check_fits(plan, device);

  std::optional<ProgressBar> bar;
  if (err_is_terminal && !opt.quiet) bar.emplace(err, planned_rows(plan), stderr_columns());
  const ProgressFn progress = [&](std::string_view what, bool starts_row) {
    if (bar) bar->update(what, starts_row);
  };
  const BenchReport report = run_bench(plan, opt.device, progress);
  bar.reset();
  const std::string text = render(report, format);
  if (opt.output.empty()) {
    out << text;
  } else {
    write_atomically(opt.output, text);
    // The file holds the rows; the screen still gets the summary, unless that is what was written.
    if (format != Format::summary) out << render(report, Format::summary);
  }
  if (!report.all_verified()) {
    const auto failed = std::count_if(report.rows.begin(), report.rows.end(),
                                      [](const BenchRow& r) { return !r.verified; });
    err << fmt::format("smemlab: {} failed verification\n", count_of(failed, "result"));
    return kExitFailure;
  }
  return 0;
}

int cmd_sum(const Options& opt, std::ostream& out) {
  const auto count = [&] {
    try {
      return smemlab::count(parse_shape(opt.sum.count));
    } catch (const UsageError&) {
    }
    throw UsageError(fmt::format("--count '{}': {}", opt.sum.count, kCountTakes));
  }();
  const DType type = parse_type(opt.sum.type);
  if (type != DType::f32 && type != DType::f64)
    throw UsageError(fmt::format("--type {}: sum adds float or double", opt.sum.type));
  out << sum_of_copies(opt.sum.value, count, type, require_device(opt.device));
  return 0;
}

// CPU only.
int cmd_banks(const Options& opt, bool warp_given, bool width_given, std::ostream& out) {
  const BanksOptions& b = opt.banks;
  const std::vector<std::string> dims = split_list(b.block, "--block");
  if (dims.size() > 3) throw UsageError("--block takes X, X,Y or X,Y,Z");
  std::vector<int> block;
  for (const auto& d : dims) {
    int value = 0;
    const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), value);
    if (ec != std::errc() || end != d.data() + d.size())
      throw UsageError(fmt::format("--block {}: whole numbers X[,Y[,Z]]", fmt::join(b.block, ",")));
    block.push_back(value);
  }
  block.resize(3, 1);
  if (warp_given && !b.map) throw UsageError("--warp chooses the warp that --map draws: add --map");
  const banks::Instruction instruction = banks::parse_instruction(b.instruction);
  // Matrix rows and the L1-bypassing copy are 16 bytes whatever the width says by default.
  const bool sixteen = instruction.matrix() || instruction.op == banks::Op::cp_async_cg;
  const banks::Access access{banks::Expression::parse(b.expression, b.bits), {block[0], block[1], block[2]},
                             sixteen && !width_given ? 16 : b.width, b.bytes, b.base, instruction, b.swizzle};
  require_format(b.format, {"table", "json"});
  const banks::Analysis analysis = banks::analyze(access);
  if (b.map && (b.warp < 0 || b.warp >= static_cast<int>(analysis.warps.size())))
    throw UsageError(fmt::format("--warp {}: the block has {}", b.warp,
                                 count_of(std::ssize(analysis.warps), "warp")));
  const int map_warp = b.map ? b.warp : -1;
  out << (b.format == "json" ? banks::render_json(access, analysis, map_warp)
                             : banks::render_table(access, analysis, map_warp));
  return 0;
}

// The compute capability explain models: --arch, else the GPU's, else Hopper's.
const explain::ArchLimits& explain_arch(const Options& opt) {
  int major = 9;
  int minor = 0;
  if (!opt.explain.arch.empty()) {
    char dot = 0;
    char extra = 0;
    if (std::sscanf(opt.explain.arch.c_str(), "%d%c%d%c", &major, &dot, &minor, &extra) != 3 || dot != '.')
      throw UsageError(fmt::format("--arch {}: a compute capability such as 9.0", opt.explain.arch));
  } else if (device_count() > 0) {
    const DeviceInfo device = query_device(opt.device);
    major = device.cc_major;
    minor = device.cc_minor;
  }
  return explain::arch_limits(major, minor);
}

// `explain --all`: every modelled variant in each type it runs, at its family's size; with
// --measure, every kernel that runs on this GPU in one Nsight Compute session (the wavefronts
// only, nothing timed).
int cmd_explain_all(const Options& opt, std::ostream& out, std::ostream& err) {
  const ExplainOptions& e = opt.explain;
  if (!e.variant.empty() || !e.size.empty() || !e.type.empty())
    throw UsageError("explain --all takes no variant, --size or --type: it explains every modelled "
                     "variant in each type it runs, at its family's size");
  const explain::ArchLimits& arch = explain_arch(opt);
  if (e.measure)
    if (const std::string why = explain::why_cannot_measure(); !why.empty()) throw CudaError(why);
  const std::vector<VariantInfo> variants = registered_variants();  // the requests point into it
  std::vector<explain::MeasureRequest> requests;
  for (const VariantInfo& v : variants) {
    if (v.model == nullptr) continue;
    if (const std::string why = e.measure ? v.why_unavailable() : ""; !why.empty()) {
      err << "smemlab: explain --all --measure leaves out " << v.id() << ": " << why << "\n";
      continue;
    }
    const Shape shape = find_family(v.family).canonical(parse_shape(find_family(v.family).spec().explain_size));
    for (const DType type : v.dtypes) requests.push_back({&v, shape, type, v.model(shape, type)});
  }
  std::vector<explain::MeasureResult> measured;
  if (e.measure) measured = explain::measure(requests, opt.device, explain::Counters::kWavefronts);
  nlohmann::json doc = nlohmann::json::array();
  int status = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const explain::MeasureRequest& r = requests[i];
    const explain::Measurement* counters = nullptr;
    if (e.measure) {
      if (measured[i].measurement) {
        counters = &*measured[i].measurement;
      } else {
        status = 1;
        err << "smemlab: " << measured[i].error << "\n";
      }
    }
    const explain::Explanation explanation = explain::explain(*r.variant, r.shape, r.type, arch, counters);
    if (e.format == "json")
      doc.push_back(nlohmann::json::parse(explain::render_json(explanation)));
    else
      out << (i > 0 ? "\n" : "") << explain::render_text(explanation);
  }
  if (e.format == "json") out << doc.dump(2) << "\n";
  return status;
}

int cmd_explain(const Options& opt, std::ostream& out, std::ostream& err) {
  const ExplainOptions& e = opt.explain;
  require_format(e.format, {"table", "json"});
  if (e.all) return cmd_explain_all(opt, out, err);
  if (e.variant.empty()) throw UsageError("explain needs family/variant (see 'smemlab list'), or --all");
  const VariantInfo variant = find_registered(e.variant);
  const DType type = e.type.empty() ? variant.dtypes.front() : parse_type(e.type);
  if (!variant.runs(type))
    throw UsageError(fmt::format("{} does not run type {}", variant.id(), dtype_name(type)));
  const BenchFamily& family = find_family(variant.family);
  const Shape shape = family.canonical(parse_shape(e.size.empty() ? family.spec().explain_size : e.size));
  const explain::ArchLimits& arch = explain_arch(opt);
  const auto render = [&](const explain::Explanation& explanation) {
    return e.format == "json" ? explain::render_json(explanation)
                              : explain::render_text(explanation);
  };
  if (!e.measure) {
    out << render(explain::explain(variant, shape, type, arch));
    return 0;
  }
  if (variant.model == nullptr)
    throw UsageError(fmt::format("{} has no model to measure against: {}", variant.id(), variant.why_no_model));
  if (const std::string why = explain::why_cannot_measure(); !why.empty()) throw CudaError(why);
  const explain::Measurement measured =
      explain::measure({&variant, shape, type, variant.model(shape, type)}, opt.device);
  const std::optional<explain::StepResults> timed =
      explain::time_steps(variant, shape, type, opt.device);
  out << render(explain::explain(variant, shape, type, arch, &measured, timed ? &*timed : nullptr));
  return 0;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, bool err_is_terminal) {
  Options opt;
  ValueHints hints;
  OptionAdder add(hints);
  CLI::App app{"smemlab: shared-memory CUDA kernels, verified, measured and explained", "smemlab"};
  app.require_subcommand(1);
  app.fallthrough();
  // An option given twice keeps its last value, as with getopt (lists keep every value).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", "smemlab " SMEMLAB_VERSION);
  add.number(app, "--device", opt.device, "CUDA device ordinal (0, 1, ...)",
             "a CUDA device ordinal: 0, 1, ...");

  const std::string family_takes = "family names, comma-separated: " + family_names();
  auto* list = app.add_subcommand("list", "List the registered kernel variants");
  add.list(*list, "--family", opt.list_families, "Only these families (comma-separated)",
           family_takes);
  list->add_flag("--names", opt.list_names,
                 "Only the full names (family/variant), one a line, for scripts");

  auto* info = app.add_subcommand("info", "Describe the GPU: SMs, clocks, memory, peaks");

  auto* bench = app.add_subcommand("bench", "Verify and time variants against the reference");
  add.list(*bench, "--family", opt.bench.families, "Families to run (comma-separated)",
           family_takes);
  add.list(*bench, "--variant", opt.bench.variants,
           "Variants: name or family/name (comma-separated)",
           "variant names, name or family/name, comma-separated (see 'smemlab list')");
  add.list(*bench, "--size", opt.bench.sizes,
           "Sizes: N, RxC or MxNxK (comma-separated); random:N[:SEED] draws N GEMM shapes",
           "sizes N, RxC or MxNxK, or random:N[:SEED], comma-separated");
  add.list(*bench, "--type", opt.bench.dtypes,
           fmt::format("Element types: {} (default: each family's first)", kDTypeNames),
           fmt::format("element types, comma-separated: {}", kDTypeNames));
  add.number(*bench, "--reps", opt.bench.options.reps, "Timed runs (median reported)",
             "a positive integer");
  add.number(*bench, "--warmup", opt.bench.options.warmup, "Untimed runs first",
             "an integer, 0 or more");
  bench->add_flag("--full", opt.bench.full, "Each family's whole sweep of sizes instead of the first look");
  add.text(*bench, "--transpose", opt.bench.transpose,
           "GEMM families: A, B or both stored transposed (a, b, ab); sizes then end in TN, NT or TT",
           "a, b or ab");
  add.text(
      *bench, "--format", opt.format,
      "summary (default on the screen), table, csv, json or markdown: every column of every row",
      "summary, table, csv, json or markdown");
  add.text(*bench, "--output", opt.output,
           "Write the rows to this file (format from --format, else its extension); the "
           "summary still prints",
           "a file name");
  bench->add_flag("--quiet", opt.quiet, "No progress bar on a terminal (there is none when stderr is piped)");

  auto* sum = app.add_subcommand("sum", "Every reduction variant on COUNT copies of VALUE, beside the exact sum");
  add.number(*sum, "--value", opt.sum.value, "The value repeated", "a finite number");
  add.text(*sum, "--count", opt.sum.count, "How many copies (N or 2^K)", kCountTakes)
      ->capture_default_str();
  add.text(*sum, "--type", opt.sum.type, "float or double", "float or double")
      ->capture_default_str();

  auto* banks_cmd =
      app.add_subcommand("banks", "Shared-memory bank conflicts of an access pattern (CPU only; no GPU needed)");
  add.text(*banks_cmd, "expression,--expression", opt.banks.expression,
           "Element index (or byte address with --bytes) as an expression of tx, ty, tz; rand(k) "
           "stands for data-dependent values, uniform in 0..k-1",
           kExpressionTakes)
      ->required();
  add.list(*banks_cmd, "--block", opt.banks.block, "Block shape X[,Y[,Z]]",
           "a block shape X[,Y[,Z]]")
      ->capture_default_str();
  auto* width =
      add.number(*banks_cmd, "--width", opt.banks.width,
                 "Bytes per access: 1, 2, 4, 8, 16 (16 for ldmatrix, stmatrix and cp.async.cg)",
                 "bytes per access: 1, 2, 4, 8 or 16");
  add.text(*banks_cmd, "--instruction", opt.banks.instruction,
           "ld, st, ldmatrix.x1|x2|x4[.trans] and stmatrix.x1|x2|x4[.trans] (lane l gives the "
           "address of row l % 8 of matrix l / 8), cp.async.ca, cp.async.cg, atom (an atomic on the "
           "block's shared memory), atom.cluster (one through a cluster's shared memory)",
           "ld, st, ldmatrix.x1|x2|x4[.trans], stmatrix.x1|x2|x4[.trans], cp.async.ca, "
           "cp.async.cg, atom or atom.cluster")
      ->capture_default_str();
  add.number(*banks_cmd, "--bits", opt.banks.bits,
             "Its integer type: 32 (int) or 64 (long long), computed as the GPU does",
             "32 or 64")
      ->capture_default_str();
  banks_cmd->add_flag("--bytes", opt.banks.bytes, "The expression is a byte address");
  add.number(*banks_cmd, "--base", opt.banks.base, "Byte offset added to every address",
             "a byte offset, a whole number");
  add.number(
      *banks_cmd, "--swizzle", opt.banks.swizzle,
      "The TMA swizzle of the tile, in bytes: 32, 64 or 128 (16-byte chunk c of 128-byte row r "
      "moves to c ^ (r % (span / 16)) for 128; 0: none)",
      "a TMA swizzle in bytes: 32, 64 or 128 (0: none)");
  banks_cmd->add_flag("--map", opt.banks.map, "Draw the banks of one warp: banks across, wavefronts down");
  auto* warp = add.number(*banks_cmd, "--warp", opt.banks.warp, "Which warp --map draws",
                          "a warp: 0, 1, ...");
  add.text(*banks_cmd, "--format", opt.banks.format, "table or json", "table or json")
      ->capture_default_str();

  auto* explain_cmd = app.add_subcommand(
      "explain", "What a variant does to shared and global memory, predicted, and what its step "
                 "bought (on the CPU; --measure needs a GPU and Nsight Compute)");
  explain_cmd->add_option("variant", opt.explain.variant, "family/variant (see 'smemlab list')");
  explain_cmd->add_flag("--all", opt.explain.all,
                        "Every variant that has a model, in each type it runs, at its family's "
                        "size (JSON: an array); with --measure, the kernels of those that run on "
                        "this GPU in one Nsight Compute session, the wavefronts only, nothing timed");
  explain_cmd->add_option("--size", opt.explain.size, "Problem size (default: the family's middle size)");
  explain_cmd->add_option("--type", opt.explain.type, "Element type (default: the variant's first: float, or bf16 for tensor-matmul)");
  explain_cmd->add_option("--arch", opt.explain.arch,
                          "Compute capability whose occupancy limits apply (default: the GPU's, or 9.0)");
  explain_cmd->add_option("--format", opt.explain.format, "table or json")->capture_default_str();
  explain_cmd->add_flag("--measure", opt.explain.measure,
                        "Needs a GPU and ncu on the PATH: run the kernel under Nsight Compute and "
                        "print its counters beside the model, and time this step and the previous "
                        "one on this GPU");

  auto* help = app.add_subcommand("help", "Show this help, or a subcommand's (smemlab help bench)");
  add.text(*help, "subcommand", opt.help_topic, "The subcommand whose help to show",
           "a subcommand");

  try {
    try {
      const std::vector<std::string> args(argv + 1, argv + argc);
      std::vector<std::string> checked = checked_arguments(app, args, hints);
      std::reverse(checked.begin(), checked.end());  // CLI11 takes the arguments last first
      try {
        app.parse(checked);
      } catch (const CLI::Success&) {
        throw;  // --help and --version
      } catch (const CLI::ParseError&) {
        // checked_arguments lets through only what CLI11 reads; this is the last resort.
        throw UsageError(
            fmt::format("cannot read '{}'; see 'smemlab --help'", fmt::join(args, " ")));
      }
      if (opt.device < 0) throw UsageError(fmt::format("--device {}: an ordinal, 0 or more", opt.device));
    } catch (const CLI::CallForVersion& e) {
      out << e.what() << "\n";
      return 0;
    } catch (const CLI::CallForHelp&) {
      out << app.help();
      return 0;
    } catch (const CLI::CallForAllHelp&) {
      out << app.help("", CLI::AppFormatMode::All);
      return 0;
    }
    if (*help) {  // the whole command's help, or the named subcommand's; not the help subcommand's
                  // own
      if (opt.help_topic.empty()) {
        out << app.get_formatter()->make_help(&app, "smemlab", CLI::AppFormatMode::Normal);
        return 0;
      }
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (sub->check_name(opt.help_topic)) {
          out << sub->help("smemlab");
          return 0;
        }
      throw unknown_subcommand(app, opt.help_topic);
    }
    if (*list) return cmd_list(opt, out);
    if (*info) return cmd_info(opt, out);
    if (*sum) return cmd_sum(opt, out);
    if (*banks_cmd) return cmd_banks(opt, warp->count() > 0, width->count() > 0, out);
    if (*explain_cmd) return cmd_explain(opt, out, err);
    return cmd_bench(opt, out, err, err_is_terminal);
  } catch (const UsageError& e) {
    err << "smemlab: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "smemlab: error: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace smemlab::cli
