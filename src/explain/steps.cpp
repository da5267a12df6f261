#include "explain/steps.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "bench/registry.hpp"
#include "explain/embedded.hpp"
#include "smemlab/error.hpp"

namespace smemlab::explain {
namespace {

// The comment as one paragraph: its line breaks and runs of spaces become single spaces.
std::string one_paragraph(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (!space)
      out += c;
    else if (!out.empty() && out.back() != ' ')
      out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return std::string(text);
}

const EmbeddedStep* find_step_file(const VariantInfo& v) {
  for (const EmbeddedStep& s : embedded_steps())
    if (s.family == v.family && s.name == v.name) return &s;
  return nullptr;
}

// "05" from "src/matmul/05_thread_tile_1d.cu".
std::string file_number(std::string_view path) {
  return std::string(path.substr(path.rfind('/') + 1, 2));
}

// A committed run: the GPU it ran on and its rows.
struct CommittedRun {
  std::string file;
  std::string gpu;
  int reps = 0;
  std::vector<BenchRow> rows;
};

const std::vector<CommittedRun>& committed_runs() {
  static const std::vector<CommittedRun> runs = [] {
    std::vector<CommittedRun> out;
    for (const EmbeddedFile& f : embedded_results()) {
      const auto doc = nlohmann::json::parse(f.text);
      CommittedRun run{std::string(f.path),
                       doc.at("device").at("name").get<std::string>(),
                       doc.at("options").at("reps").get<int>(),
                       {}};
      for (const auto& r : doc.at("rows")) {
        BenchRow row;
        row.family = r.at("family").get<std::string>();
        row.variant = r.at("variant").get<std::string>();
        row.dtype = r.at("dtype").get<std::string>();
        row.size = r.at("size").get<std::string>();
        row.time.median_ms = r.at("median_ms").get<double>();
        row.vs_reference = r.at("vs_reference").get<double>();
        row.verified = r.at("verified").get<bool>();
        row.reference = r.at("reference").get<bool>();
        run.rows.push_back(std::move(row));
      }
      out.push_back(std::move(run));
    }
    return out;
  }();
  return runs;
}

// The label of a family's first case of `type` in a run's rows: the type's name where a row has
// it, else the first label that begins with it (a family whose every case is labelled, as
// attention's "bf16 hd128", "bf16 hd128 causal", ..., lists its first case first).
std::string first_case(std::span<const BenchRow> rows, const BenchFamily& family, DType type) {
  const std::string name(dtype_name(type));
  std::string first;
  for (const BenchRow& row : rows) {
    if (row.family != family.name()) continue;
    if (row.dtype == name) return name;
    if (first.empty() && row.dtype.starts_with(name + " ")) first = row.dtype;
  }
  return first.empty() ? name : first;
}

// Whether a row is of this family, size and case; sizes compare in canonical form (a run
// writes "2048" or "2^24" where explain has 2048x2048x2048 or 16777216).
bool same_case(const BenchRow& row, const BenchFamily& family, const Shape& shape, const std::string& label) {
  if (row.family != family.name() || row.dtype != label) return false;
  try {
    return family.canonical(parse_shape(row.size)) == shape;
  } catch (const UsageError&) {
    return false;
  }
}

}  // namespace

std::optional<Step> describe_step(const VariantInfo& v) {
  const EmbeddedStep* source = find_step_file(v);
  if (source == nullptr) return std::nullopt;
  Step step;
  step.number = file_number(source->path);
  step.file = std::string(source->path);
  std::string text = one_paragraph(source->header);
  // The comment opens with "NN — ": the number is shown apart.
  if (const auto dash = text.find(" — "); dash != std::string::npos && dash <= 2)
    text = text.substr(dash + std::string_view(" — ").size());
  constexpr std::string_view kChanged = "Changed ";  // "Changed from 05: ..."
  constexpr std::string_view kShouldBuy = "Should buy:";
  const auto changed = text.find(std::string(kChanged) + "from");
  const auto buys = text.find(kShouldBuy);
  step.summary = trimmed(std::string_view(text).substr(0, std::min(changed, buys)));
  if (changed != std::string::npos) {
    const auto end = buys != std::string::npos && buys > changed ? buys : text.size();
    step.changed = trimmed(
        std::string_view(text).substr(changed + kChanged.size(), end - changed - kChanged.size()));
  }
  if (buys != std::string::npos) {
    const auto end = changed != std::string::npos && changed > buys ? changed : text.size();
    step.should_buy = trimmed(
        std::string_view(text).substr(buys + kShouldBuy.size(), end - buys - kShouldBuy.size()));
  }
  const std::vector<VariantInfo> table = find_family(v.family).variants();
  const auto at = std::find_if(table.begin(), table.end(),
                               [&](const VariantInfo& t) { return t.name == v.name; });
  if (at != table.end() && at != table.begin()) {
    step.previous = *(at - 1);
    if (const EmbeddedStep* previous = find_step_file(*step.previous))
      step.previous_number = file_number(previous->path);
  }
  return step;
}

StepResults results_in_run(std::span<const BenchRow> rows, const VariantInfo& v, const Step& step,
                           const Shape& shape, DType type, const std::string& gpu,
                           const std::string& file, int reps) {
  const BenchFamily& family = find_family(v.family);
  StepResults out;
  out.measured_here = file.empty();
  out.gpu = gpu;
  out.file = file;
  out.reps = reps;
  out.size = shape.label();  // the run's own spelling replaces it where the step ran
  const std::string label = first_case(rows, family, type);
  out.type = label;
  const auto timing = [&](const BenchRow& row) {
    return StepTiming{fmt::format("{}/{}", row.family, row.variant), row.time.median_ms,
                      row.vs_reference, row.verified};
  };
  for (const BenchRow& row : rows) {
    if (!same_case(row, family, shape, label)) continue;
    if (row.reference) out.reference = fmt::format("{}/{}", row.family, row.variant);
    if (row.variant == v.name) {
      out.step = timing(row);
      out.size = row.size;
    }
    if (step.previous && row.variant == step.previous->name) out.previous = timing(row);
  }
  return out;
}

void add_committed_results(Step& step, const VariantInfo& v, const Shape& shape, DType type) {
  const BenchFamily& family = find_family(v.family);
  std::vector<std::string> sizes;  // where the committed runs have it instead
  for (const CommittedRun& run : committed_runs()) {
    const StepResults results =
        results_in_run(run.rows, v, step, shape, type, run.gpu, run.file, run.reps);
    if (results.step) {
      step.results = results;
      return;
    }
    const std::string label = first_case(run.rows, family, type);
    for (const BenchRow& row : run.rows)
      if (row.family == family.name() && row.variant == v.name && row.dtype == label &&
          std::find(sizes.begin(), sizes.end(), row.size) == sizes.end())
        sizes.push_back(row.size);
  }
  step.why_no_results =
      sizes.empty() ? fmt::format("no committed run has {} for type {}", v.id(), dtype_name(type))
                    : fmt::format("no committed run has {} at {} ({}); they have it at {}", v.id(),
                                  shape.label(), dtype_name(type), fmt::join(sizes, ", "));
}

}  // namespace smemlab::explain
