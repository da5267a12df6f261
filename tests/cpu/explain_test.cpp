// `smemlab explain`: its JSON and text say the same, each step says what changed and what it
// bought, and the models agree with Nsight Compute.
//
// The explain models against Nsight Compute: each model's predicted shared-memory wavefronts,
// summed over the kernel, compared with the counters committed under docs/results/data (H200;
// scripts/ncu-profile.sh: the L1's counters). Loads agree within 5%; stores are a lower bound,
// within 16%: the L1 counts 0.7-15% more store wavefronts than the instructions' addresses need,
// depending on the kernel (where other traffic shares the banks; docs/guide/banks.md), and
// reports them as bank conflicts. A prediction above the measurement by more than 1% would be a
// wrong model. On a GPU, explain_check.py compares the stores with the count from the addresses,
// within 5%.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "bench/bench.hpp"
#include "bench/registry.hpp"
#include "core/text.hpp"
#include "explain/explain.hpp"
#include "explain/measure.hpp"
#include "explain/resources.hpp"
#include "explain/steps.hpp"
#include "smemlab/access_model.hpp"
#include "support/run_cli.hpp"

using namespace smemlab;

namespace {

// kernel name -> column -> value, from a scripts/ncu_summary.py table.
std::map<std::string, std::map<std::string, double>> read_ncu_table(const std::string& path) {
  std::ifstream file(path);
  std::string header;
  std::getline(file, header);
  std::vector<std::string> columns;
  std::istringstream h(header);
  for (std::string c; h >> c;) columns.push_back(c);
  std::map<std::string, std::map<std::string, double>> table;
  const std::regex gap(R"(\s{2,})");
  for (std::string line; std::getline(file, line);) {
    std::vector<std::string> fields(std::sregex_token_iterator(line.begin(), line.end(), gap, -1), {});
    if (fields.size() < 2) continue;
    for (std::size_t i = 1; i < fields.size() && i < columns.size(); ++i) {
      try {
        table[fields[0]][columns[i]] = std::stod(fields[i]);
      } catch (const std::exception&) {
      }
    }
  }
  return table;
}

// The text with every run of spaces and line breaks as one space: what a wrapped field says.
std::string flat(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c != ' ' && c != '\n') out += c;
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  return out;
}

struct Case {
  const char* table;
  const char* family;
  const char* variant;
  const char* size;
  const char* kernel;
};

}  // namespace

TEST(ExplainModels, MatchTheMeasuredCounters) {
  const std::string dir = SMEMLAB_DOCS_DATA_DIR;
  const Case cases[] = {
      {"matmul-h200-ncu-2048.txt", "matmul", "smem_tile16", "2048", "tiled_static_kernel<16>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "smem_tile32", "2048", "tiled_static_kernel<32>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "dyn_tile16_const", "2048", "tiled_dynamic_kernel<FixedTile<16>>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "dyn_tile16_runtime", "2048", "tiled_dynamic_kernel<RuntimeTile>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "conflict_tile16", "2048", "column_major_tile_kernel<0>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "conflict_tile16_padded", "2048", "column_major_tile_kernel<1>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "thread_tile_1d", "2048", "thread_tile_1d_kernel"},
      {"matmul-h200-ncu-2048.txt", "matmul", "thread_tile_2d", "2048", "thread_tile_2d_kernel"},
      {"matmul-h200-ncu-2048.txt", "matmul", "vectorized", "2048", "vectorized_tile_kernel<0, 1>"},
      {"matmul-h200-ncu-2048.txt", "matmul", "conflict_free", "2048", "vectorized_tile_kernel<1, 1>"},
      // (ncu_summary.py shortens kernel names to 60 characters)
      {"matmul-h200-ncu-2048.txt", "matmul", "warp_tile", "2048", "tiled_gemm_kernel<TileConfig<128, 128, 8, 32, 64, 8, 8, 1, 2"},
      {"matmul-h200-ncu-2048.txt", "matmul", "pipelined", "2048", "tiled_gemm_kernel<TileConfig<128, 128, 8, 32, 64, 8, 8, 3, 2"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "shared_static", "2^24", "shared_static_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "shared_dynamic", "2^24", "shared_dynamic_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "interleaved_divergent", "2^24", "interleaved_divergent_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "interleaved_strided", "2^24", "interleaved_strided_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "sequential", "2^24", "sequential_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "first_add_on_load", "2^24", "first_add_kernel<float>"},
      {"reduction-h200-ncu-2p24.txt", "reduction", "warp_shuffle", "2^24", "warp_shuffle_kernel<float>"},
      {"transpose-h200-ncu-8192.txt", "transpose", "smem_tile", "8192", "tile_transpose_kernel<smemlab::PlainLayout, float>"},
      {"transpose-h200-ncu-8192.txt", "transpose", "padded", "8192", "tile_transpose_kernel<smemlab::PaddedLayout, float>"},
      {"transpose-h200-ncu-8192.txt", "transpose", "swizzled", "8192", "tile_transpose_kernel<smemlab::SwizzledLayout, float>"},
      {"transpose-h200-ncu-8192.txt", "transpose", "tuned", "8192", "tuned_vec_kernel"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.family) + "/" + c.variant);
    const auto table = read_ncu_table(dir + "/" + c.table);
    const auto row = table.find(c.kernel);
    ASSERT_NE(row, table.end()) << "kernel " << c.kernel << " not in " << c.table;
    const Shape shape = find_family(c.family).canonical(parse_shape(c.size));
    const VariantInfo v = find_registered(std::string(c.family) + "/" + c.variant);
    ASSERT_NE(v.model, nullptr);
    const Prediction p = predict(v.model(shape, DType::f32));
    const double ld = row->second.at("shLdWave");
    const double st = row->second.at("shStWave");
    EXPECT_NEAR(static_cast<double>(p.ld_wavefronts) / ld, 1.0, 0.05) << p.ld_wavefronts << " vs " << ld;
    EXPECT_LE(static_cast<double>(p.st_wavefronts), 1.01 * st) << p.st_wavefronts << " vs " << st;
    EXPECT_GE(static_cast<double>(p.st_wavefronts), st / 1.16) << p.st_wavefronts << " vs " << st;
  }
}

TEST(ExplainCli, EveryVariantIsExplainedAndErrorsAreUsageErrors) {
  using smemlab::testing::run_cli;
  for (const auto& v : registered_variants()) {
    const auto r = run_cli({"explain", v.id(), "--format", "json"});
    ASSERT_EQ(r.status, 0) << v.id() << ": " << r.err;
    EXPECT_NE(r.out.find("\"technique\""), std::string::npos) << v.id();
  }
  const auto text = run_cli({"explain", "matmul/smem_tile16", "--size", "64"});
  EXPECT_NE(text.out.find("predicted shared wavefronts"), std::string::npos);
  // Occupancy comes from the compiled kernel: registers bind where the thread count and shared
  // memory alone would allow more.
  for (const auto& [args, blocks] : std::vector<std::pair<std::vector<std::string>, int>>{
           {{"explain", "matmul/thread_tile_2d", "--format", "json"}, 1},
           {{"explain", "matmul/thread_tile_1d", "--format", "json"}, 2},
           {{"explain", "transpose/tuned", "--type", "double", "--format", "json"}, 3}}) {
    const auto doc = nlohmann::json::parse(run_cli(args).out);
    EXPECT_EQ(doc["model"]["occupancy"]["blocks_per_sm"], blocks) << args[1];
    EXPECT_EQ(doc["model"]["occupancy"]["bound_by"], "registers") << args[1];
  }
  // Every model names a kernel that was compiled.
  for (const auto& v : registered_variants()) {
    if (v.model == nullptr) continue;
    for (const DType t : v.dtypes) {
      const auto doc = nlohmann::json::parse(
          run_cli({"explain", v.id(), "--type", std::string(dtype_name(t)), "--format", "json"}).out);
      EXPECT_TRUE(doc["model"]["occupancy"].contains("compiled")) << v.id() << " " << dtype_name(t);
    }
  }
  // The autotuned variant names what it would launch, with the model's waves and time; 256^2
  // outputs of depth 65536 are too few tiles to fill the GPU one block per tile.
  const auto tuned = run_cli({"explain", "matmul/autotuned", "--size", "256x256x65536"});
  EXPECT_NE(tuned.out.find("launches:      tile configuration"), std::string::npos) << tuned.out;
  EXPECT_TRUE(tuned.out.find("split-K: ") != std::string::npos || tuned.out.find("last-wave split: ") != std::string::npos)
      << tuned.out;
  EXPECT_NE(tuned.out.find(" waves of resident blocks; predicted "), std::string::npos) << tuned.out;
  // Occupancy follows the architecture's limits on 8.6: 100 KiB / (8 + 1 KiB) = 11 blocks, 1536 / 1024
  // threads = 1.
  const std::string ampere = flat(run_cli({"explain", "matmul/smem_tile32", "--arch", "8.6"}).out);
  EXPECT_NE(ampere.find("occupancy: 1 block per SM on compute capability 8.6, bound by threads"),
            std::string::npos)
      << ampere;
  EXPECT_NE(ampere.find("shared memory 11, threads 1, block limit 16"), std::string::npos)
      << ampere;
  EXPECT_NE(ampere.find("an SM of 8.6 holds 100 KiB of shared memory for blocks, 65536 registers, "
                        "1536 threads, 16 blocks"),
            std::string::npos)
      << ampere;
  for (const auto& args : {std::vector<std::string>{"explain", "nope"},
                           std::vector<std::string>{"explain", "matmul/nope"},
                           std::vector<std::string>{"explain", "matmul/naive", "--size", "0"},
                           std::vector<std::string>{"explain", "transpose/tuned", "--type", "int"},
                           // float-only variants refuse double instead of relabelling their float model
                           std::vector<std::string>{"explain", "matmul/smem_tile16", "--type", "double"},
                           std::vector<std::string>{"explain", "reduction/cpu_float", "--type", "double"},
                           std::vector<std::string>{"explain", "matmul/naive", "--arch", "9"},
                           std::vector<std::string>{"explain", "matmul/naive", "--measure"},  // no model
                           std::vector<std::string>{"explain", "matmul/naive", "--arch", "1.0"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args[1];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// The model names a kernel as the demangler writes it; Nsight Compute writes enum template
// arguments without their cast and with namespaces: both must compare equal.
TEST(ExplainKernelNames, CompareAcrossToolsSpellings) {
  EXPECT_EQ(explain::comparable_kernel_name("void smemlab::tensor_matmul::detail::mma_gemm_kernel<smemlab::tensor_matmul::"
                                            "detail::MmaConfig<128, 128, 64, 32, 1, (smemlab::tensor_matmul::detail::"
                                            "Layout)0, false, 1>, smemlab::tensor_matmul::detail::Bf16, true>(GemmArgs)"),
            explain::comparable_kernel_name("mma_gemm_kernel<MmaConfig<128, 128, 64, 32, 1, 0, 0, 1>, Bf16, 1>(GemmArgs)"));
}

namespace {

// Columns on a terminal: UTF-8 continuation bytes take none.
std::size_t columns(const std::string& line) {
  return static_cast<std::size_t>(std::count_if(line.begin(), line.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

using smemlab::testing::lines_of;

// "1 block", "2 blocks", for a count read from the JSON.
std::string plural(double n, std::string_view noun) { return count_of(std::llround(n), noun); }

// The text fits a terminal, and counts of one take the singular.
void expect_readable(const std::string& text) {
  for (const auto& line : lines_of(text))
    EXPECT_LE(columns(line), smemlab::explain::kTextColumns) << line;
  const std::regex singular_as_plural(R"(\b1 (block|warp|tile|register|thread|byte|run)s\b)");
  EXPECT_FALSE(std::regex_search(text, singular_as_plural)) << text;
}

// Each shared-memory instruction of the JSON against its row of the text's table: the row
// (op, instruction, bytes, per block, wavefronts per warp, ideal per warp, total) and the line
// under it (what, expression, block).
void expect_same_accesses(const nlohmann::json& accesses, const std::vector<std::string>& lines) {
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("  op    instruction");
  });
  if (accesses.empty()) {
    EXPECT_EQ(header, lines.end());
    return;
  }
  ASSERT_NE(header, lines.end());
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> details;
  for (auto it = header + 1; it != lines.end() && it->starts_with("  "); ++it) {
    if (it->starts_with("      ")) {
      ASSERT_FALSE(details.empty()) << *it;
      details.back() += *it;
      continue;
    }
    std::istringstream words(*it);
    rows.emplace_back(std::istream_iterator<std::string>(words),
                      std::istream_iterator<std::string>());
    details.emplace_back();
  }
  ASSERT_EQ(rows.size(), accesses.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& a = accesses[i];
    const auto& row = rows[i];
    ASSERT_EQ(row.size(), 7U) << fmt::format("{}", fmt::join(row, " "));
    EXPECT_EQ(row[0], a["op"].get<std::string>());
    EXPECT_EQ(row[1], a["instruction"].get<std::string>());
    // The op says how the hardware counts the instruction: they cannot disagree.
    const std::string op = a["op"];
    const std::string instruction = a["instruction"];
    if (op == "cp")
      EXPECT_TRUE(instruction.starts_with("cp.async")) << instruction;
    else if (op == "atom")
      EXPECT_TRUE(instruction == "atom" || instruction == "atom.cluster") << instruction;
    else
      EXPECT_TRUE(instruction == op || instruction.starts_with(op + "matrix"))
          << op << " " << instruction;
    EXPECT_EQ(std::stoi(row[2]), a["width"].get<int>());
    const auto near = [](const std::string& shown, double value, double decimals) {
      EXPECT_NEAR(std::stod(shown), value, 0.5 * decimals + 1e-12 * std::abs(value)) << shown;
    };
    near(row[3], a["per_block"], 1e-3);
    near(row[4], a["wavefronts_per_warp"], 1e-2);
    near(row[5], a["ideal_per_warp"], 1e-2);
    near(row[6], a["total_wavefronts"], 1e-3);
    const auto& b = a["block"];
    EXPECT_EQ(flat(details[i]), fmt::format("{}: {}, block {}x{}x{}{}", a["what"].get<std::string>(),
                                            a["expression"].get<std::string>(), b[0].get<int>(),
                                            b[1].get<int>(), b[2].get<int>(),
                                            a["per_launch"].get<bool>() ? " (per launch, not per block)" : ""));
  }
}

void expect_same_step(const nlohmann::json& step, const std::string& text) {
  const auto says = [&](const std::string& part) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\nin: " << text;
  };
  says(fmt::format("step: {} ({})", step["number"].get<std::string>(),
                   step["file"].get<std::string>()));
  if (!step["previous"].is_null())
    says(fmt::format(", after {} (step {}): {}", step["previous"]["variant"].get<std::string>(),
                     step["previous"]["number"].get<std::string>(),
                     step["previous"]["description"].get<std::string>()));
  if (!step["changed"].get<std::string>().empty())
    says("changed: " + step["changed"].get<std::string>());
  if (!step["should_buy"].get<std::string>().empty())
    says("should buy: " + step["should_buy"].get<std::string>());
  const auto& r = step["results"];
  if (r.is_null()) {
    says("bought: " + step["why_no_results"].get<std::string>());
    return;
  }
  says(fmt::format("on {}, at {} ({})", r["gpu"].get<std::string>(), r["size"].get<std::string>(),
                   r["type"].get<std::string>()));
  if (!r["step"].is_null())
    says(fmt::format("this step {:.3f} of {}'s speed ({:.4g} ms)",
                     r["step"]["vs_reference"].get<double>(), r["reference"].get<std::string>(),
                     r["step"]["median_ms"].get<double>()));
  if (!r["previous"].is_null())
    says(fmt::format("the previous step {:.3f} ({:.4g} ms)",
                     r["previous"]["vs_reference"].get<double>(),
                     r["previous"]["median_ms"].get<double>()));
  if (!r["speedup_over_previous"].is_null())
    says(
        fmt::format("{:.2f}x the previous step's speed", r["speedup_over_previous"].get<double>()));
}

// The JSON's fields against the text's: the same numbers and words, the kernel named in full.
void expect_same_explanation(const nlohmann::json& doc, const std::string& raw_text) {
  const std::string text = flat(raw_text);
  const auto says = [&](const std::string& part) {
    EXPECT_NE(text.find(part), std::string::npos) << "missing: " << part << "\nin: " << raw_text;
  };
  says(fmt::format("{}: {}", doc["variant"].get<std::string>(),
                   doc["description"].get<std::string>()));
  says("technique: " + doc["technique"].get<std::string>());
  if (!doc["step"].is_null()) expect_same_step(doc["step"], text);
  const auto& m = doc["model"];
  const auto& block = m["block"];
  const std::string threads =
      fmt::format("{}x{}x{}", block[0].get<int>(), block[1].get<int>(), block[2].get<int>());
  says(fmt::format("shared memory: {}, {} per block of {} threads",
                   m["dynamic_smem"].get<bool>() ? "dynamic" : "static",
                   plural(m["smem_bytes"].get<double>(), "byte"), threads));

  // The kernel in full: a compiled kernel's name, which the model's name begins.
  const std::string kernel = m["kernel"];
  const auto& compiled = smemlab::explain::compiled_kernels();
  EXPECT_TRUE(std::any_of(compiled.begin(), compiled.end(), [&](const auto& k) {
    return k.name == kernel;
  })) << kernel;
  EXPECT_TRUE(kernel.ends_with(")")) << kernel;
  says("kernel: " + kernel);
  for (const auto& other : m["other_kernels"]) says("also compiled: " + other.get<std::string>());

  const auto& o = m["occupancy"];
  says(fmt::format("occupancy: {} per SM on compute capability {}, bound by {}",
                   plural(o["blocks_per_sm"].get<double>(), "block"),
                   o["compute_capability"].get<std::string>(), o["bound_by"].get<std::string>()));
  says(fmt::format(
      "blocks each resource allows: registers {}, shared memory {}, threads {}, block limit {}",
      o["by_registers"].is_null() ? std::string("not known") : o["by_registers"].dump(),
      o["by_shared_memory"].get<int>(), o["by_threads"].get<int>(),
      o["by_block_limit"].get<int>()));
  const auto& limits = o["limits"];
  says(fmt::format("an SM of {} holds {} KiB of shared memory for blocks, {}, {}, {}",
                   o["compute_capability"].get<std::string>(),
                   limits["shared_memory_per_sm"].get<int>() / 1024,
                   plural(limits["registers_per_sm"].get<double>(), "register"),
                   plural(limits["threads_per_sm"].get<double>(), "thread"),
                   plural(limits["blocks_per_sm"].get<double>(), "block")));
  ASSERT_TRUE(o.contains("compiled"));
  const auto& c = o["compiled"];
  EXPECT_EQ(c["kernel"], kernel);
  says(fmt::format(
      "compiled for {}: {} a thread, {} of static shared memory, {} of stack, {} spilled",
      c["arch"].get<std::string>(), plural(c["registers"].get<double>(), "register"),
      plural(c["static_smem"].get<double>(), "byte"),
      plural(c["stack_bytes"].get<double>(), "byte"),
      plural(c["spill_bytes"].get<double>(), "byte")));

  says(
      fmt::format("at {} ({}): {}", doc["size"].get<std::string>(), doc["type"].get<std::string>(),
                  plural(m["blocks"].get<double>(), m["per_tile"].get<bool>() ? "tile" : "block")));
  expect_same_accesses(m["accesses"], lines_of(raw_text));
  const auto& p = m["predicted"];
  says(fmt::format("predicted shared wavefronts: loads {} (ideal {}), stores {} (ideal {})",
                   p["ld_wavefronts"].get<long long>(), p["ld_ideal"].get<long long>(),
                   p["st_wavefronts"].get<long long>(), p["st_ideal"].get<long long>()));
  if (p["cp_wavefronts"].get<long long>() > 0)
    says(fmt::format("cp.async writes {} (ideal {})", p["cp_wavefronts"].get<long long>(),
                     p["cp_ideal"].get<long long>()));
  if (p["atom_wavefronts"].get<long long>() > 0)
    says(fmt::format("atomics {} (ideal {})", p["atom_wavefronts"].get<long long>(),
                     p["atom_ideal"].get<long long>()));
  says("global memory: " + m["traffic"].get<std::string>());
  if (!m["notes"].get<std::string>().empty()) says("notes: " + m["notes"].get<std::string>());
}

}  // namespace

// Every modelled variant of every family in the registry, in each type it runs: the JSON and
// the text table say the same, and the text fits within 100 columns.
TEST(ExplainRender, JsonAndTextAgreeForEveryModelledVariant) {
  using smemlab::testing::run_cli;
  int checked = 0;
  for (const BenchFamily* family : families()) {
    for (const VariantInfo& v : family->variants()) {
      for (const DType t : v.dtypes) {
        SCOPED_TRACE(v.id() + " " + std::string(dtype_name(t)));
        const std::vector<std::string> args{"explain", v.id(), "--type",
                                            std::string(dtype_name(t))};
        const auto text = run_cli(args);
        ASSERT_EQ(text.status, 0) << text.err;
        expect_readable(text.out);
        if (v.model == nullptr) continue;
        auto json_args = args;
        json_args.insert(json_args.end(), {"--format", "json"});
        const auto json = run_cli(json_args);
        ASSERT_EQ(json.status, 0) << json.err;
        expect_same_explanation(nlohmann::json::parse(json.out), text.out);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 60);
}

// Each step of the four families' tables says what its file says it changed and should buy,
// names the previous entry of its table, and what it bought in the committed runs.
TEST(ExplainSteps, SayWhatChangedAndWhatItBought) {
  using smemlab::testing::run_cli;
  for (const char* name : {"matmul", "tensor-matmul", "reduction", "scan", "histogram", "transpose", "attention"}) {
    const std::vector<VariantInfo> table = find_family(name).variants();
    for (std::size_t i = 0; i < table.size(); ++i) {
      SCOPED_TRACE(table[i].id());
      const auto step = explain::describe_step(table[i]);
      ASSERT_TRUE(step.has_value());
      std::ifstream file(std::string(SMEMLAB_SOURCE_DIR) + "/" + step->file);
      std::string first;
      std::getline(file, first);
      EXPECT_TRUE(first.starts_with("// " + step->number + " — ")) << first;
      EXPECT_FALSE(step->summary.empty() && step->changed.empty() && step->should_buy.empty());
      if (i == 0)
        EXPECT_FALSE(step->previous.has_value());
      else
        EXPECT_EQ(step->previous->id(), table[i - 1].id());
    }
  }
  EXPECT_FALSE(explain::describe_step(find_registered("banks/u32")).has_value());

  const auto doc =
      nlohmann::json::parse(run_cli({"explain", "matmul/thread_tile_1d", "--format", "json"}).out);
  const auto& step = doc["step"];
  EXPECT_EQ(step["number"], "05");
  EXPECT_EQ(step["file"], "src/matmul/05_thread_tile_1d.cu");
  EXPECT_TRUE(
      step["changed"].get<std::string>().starts_with("from 02: a thread keeps 8 accumulators"))
      << step["changed"];
  EXPECT_TRUE(step["should_buy"].get<std::string>().starts_with("roughly twice the tiled kernel"))
      << step["should_buy"];
  EXPECT_EQ(step["previous"]["variant"], "matmul/conflict_tile16_padded");
  EXPECT_EQ(step["previous"]["number"], "04");

  // What it bought: the rows of the committed run, on the GPU that run names.
  const auto& r = step["results"];
  ASSERT_FALSE(r.is_null()) << step;
  EXPECT_EQ(r["source"], "committed");
  EXPECT_EQ(r["file"], "docs/results/data/bench-full-h200.json");
  std::ifstream committed(std::string(SMEMLAB_DOCS_DATA_DIR) + "/bench-full-h200.json");
  const auto run = nlohmann::json::parse(committed);
  EXPECT_EQ(r["gpu"], run["device"]["name"]);
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : run["rows"])
    if (row["family"] == "matmul" && row["size"] == "2048") rows[row["variant"]] = row;
  EXPECT_EQ(r["size"], "2048");
  EXPECT_EQ(r["reference"], "matmul/cublas");
  EXPECT_EQ(r["step"]["vs_reference"], rows["thread_tile_1d"]["vs_reference"]);
  EXPECT_EQ(r["step"]["median_ms"], rows["thread_tile_1d"]["median_ms"]);
  EXPECT_EQ(r["previous"]["vs_reference"], rows["conflict_tile16_padded"]["vs_reference"]);
  EXPECT_DOUBLE_EQ(r["speedup_over_previous"].get<double>(),
                   rows["conflict_tile16_padded"]["median_ms"].get<double>() /
                       rows["thread_tile_1d"]["median_ms"].get<double>());

  // Double runs come from their own committed run; the first step of a table has no previous.
  const auto cub = nlohmann::json::parse(
      run_cli({"explain", "reduction/cub", "--type", "double", "--format", "json"}).out)["step"];
  EXPECT_TRUE(cub["previous"].is_null());
  EXPECT_EQ(cub["results"]["file"], "docs/results/data/reduction-h200-double.json");
  EXPECT_EQ(cub["results"]["step"]["vs_reference"], 1.0);

  // A family whose every case is labelled (attention: "bf16 hd128", "bf16 hd128 causal", ...):
  // its first case, named in the results.
  const auto persistent = nlohmann::json::parse(
      run_cli({"explain", "attention/persistent", "--size", "4096", "--format", "json"}).out)["step"];
  ASSERT_FALSE(persistent["results"].is_null()) << persistent;
  EXPECT_EQ(persistent["results"]["file"], "docs/results/data/attention-full-bf16-h100.json");
  EXPECT_EQ(persistent["results"]["type"], "bf16 hd128");
  EXPECT_EQ(persistent["results"]["previous"]["variant"], "attention/split_kv");

  // A size no committed run has: the reason names the sizes they have.
  const auto odd = nlohmann::json::parse(
      run_cli({"explain", "matmul/thread_tile_1d", "--size", "100", "--format", "json"})
          .out)["step"];
  EXPECT_TRUE(odd["results"].is_null());
  EXPECT_NE(odd["why_no_results"].get<std::string>().find("2048"), std::string::npos) << odd;
}

TEST(ExplainCli, HelpSaysWhatNeedsAGpu) {
  const auto help = smemlab::testing::run_cli({"explain", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--measure needs a GPU and Nsight Compute"), std::string::npos)
      << help.out;
  EXPECT_EQ(help.out.find("CPU only"), std::string::npos) << help.out;
}

// What --measure adds, from a measurement made up here: Nsight Compute's counters beside the
// model, and the step and the previous one timed on this GPU, in the text and the JSON.
TEST(ExplainRender, MeasuredCountersAndTimesFitAndAgree) {
  const VariantInfo v = find_registered("matmul/smem_tile32");
  const BenchFamily& family = find_family("matmul");
  const Shape shape = family.canonical(parse_shape("2048"));
  const Prediction p = predict(v.model(shape, DType::f32));
  explain::Measurement counters;
  counters.kernel = "tiled_static_kernel<32>(GemmArgs)";
  counters.grid_blocks = v.model(shape, DType::f32).blocks;
  counters.ld_wavefronts = static_cast<double>(p.ld_wavefronts);
  counters.st_wavefronts = static_cast<double>(p.st_wavefronts) * 1.04;  // within the tolerance
  counters.l1_st_wavefronts = counters.st_wavefronts * 1.3;  // the L1 counts more than the addresses
  counters.dram_bytes = 1.5e8;
  counters.achieved_occupancy_pct = 97.5;
  counters.stalls = {{"barrier", 3.25}, {"mio_throttle", 1.5}, {"long_scoreboard", 0.75}};
  const auto row = [&](const char* name, double ms, bool reference) {
    BenchRow r;
    r.family = "matmul";
    r.variant = name;
    r.dtype = "float";
    r.size = "2048";
    r.time.median_ms = ms;
    r.vs_reference = 1.0 / ms;
    r.verified = true;
    r.reference = reference;
    return r;
  };
  const std::vector<BenchRow> rows{row("cublas", 1.0, true), row("smem_tile16", 8.0, false),
                                   row("smem_tile32", 6.0, false)};
  const auto step = explain::describe_step(v);
  ASSERT_TRUE(step.has_value());
  const explain::StepResults timed = explain::results_in_run(
      rows, v, *step, shape, DType::f32, "a made-up GPU", "", 21);
  const explain::Explanation e =
      explain::explain(v, shape, DType::f32, explain::arch_limits(9, 0), &counters, &timed);

  const std::string text = explain::render_text(e);
  expect_readable(text);
  const std::string said = flat(text);
  EXPECT_NE(said.find("bought: on a made-up GPU, at 2048 (float), timed now on this GPU (median of "
                      "21 runs): this step 0.167 of matmul/cublas's speed (6 ms); the previous "
                      "step 0.125 (8 ms): 1.33x the previous step's speed"),
            std::string::npos)
      << text;
  EXPECT_NE(said.find("measured with Nsight Compute: tiled_static_kernel<32>(GemmArgs)"),
            std::string::npos)
      << text;
  EXPECT_NE(said.find("top stalls (warps stalled per issue): barrier 3.25, mio_throttle 1.50, "
                      "long_scoreboard 0.75"),
            std::string::npos)
      << text;
  EXPECT_NE(said.find("within 5% of the measurement): yes"), std::string::npos) << text;

  const auto doc = nlohmann::json::parse(explain::render_json(e));
  const auto& r = doc["step"]["results"];
  EXPECT_EQ(r["source"], "measured");
  EXPECT_TRUE(r["file"].is_null());
  EXPECT_EQ(r["gpu"], "a made-up GPU");
  EXPECT_DOUBLE_EQ(r["speedup_over_previous"].get<double>(), 8.0 / 6.0);
  const auto& m = doc["measured"];
  EXPECT_EQ(m["within_tolerance"], true);
  EXPECT_EQ(m["ld_wavefronts"]["predicted"].get<double>(), static_cast<double>(p.ld_wavefronts));
  EXPECT_EQ(m["st_wavefronts"]["measured"].get<double>(), counters.st_wavefronts);
  EXPECT_EQ(m["st_wavefronts"]["l1"].get<double>(), counters.l1_st_wavefronts);
  EXPECT_EQ(m["occupancy_pct"]["achieved"].get<double>(), 97.5);
  EXPECT_EQ(m["top_stalls"]["barrier"].get<double>(), 3.25);
  expect_same_explanation(doc, text);
}

// Where wgmma reads shared memory beside a kernel's loads, the L1 counts the loads' waits for it
// as wavefronts too: the model is held to the count from the addresses, the L1's shown beside.
TEST(ExplainRender, LoadsBesideWgmmaAreComparedByTheirAddresses) {
  const VariantInfo v = find_registered("tensor-matmul/swapped");
  const Shape shape = find_family("tensor-matmul").canonical(parse_shape("4096"));
  const AccessModel model = v.model(shape, DType::tf32);
  ASSERT_TRUE(model.tensor_cores_read_shared);
  const Prediction p = predict(model);
  ASSERT_GT(p.ld_wavefronts, 0);
  explain::Measurement counters;
  counters.kernel = "wgmma_gemm_kernel<...>";
  counters.grid_blocks = model.blocks;
  counters.addr_ld_wavefronts = static_cast<double>(p.ld_wavefronts);
  counters.ld_wavefronts = 1.97 * counters.addr_ld_wavefronts;
  const explain::Explanation e = explain::explain(v, shape, DType::tf32, explain::arch_limits(9, 0), &counters, nullptr);
  const auto doc = nlohmann::json::parse(explain::render_json(e));
  const auto& m = doc["measured"];
  EXPECT_EQ(m["within_tolerance"], true);
  EXPECT_EQ(m["ld_wavefronts"]["measured"].get<double>(), counters.addr_ld_wavefronts);
  EXPECT_EQ(m["ld_wavefronts"]["l1"].get<double>(), counters.ld_wavefronts);
  EXPECT_NE(flat(explain::render_text(e)).find("as the L1 counted them"), std::string::npos);

  // A kernel without wgmma is held to the L1's count, ldmatrix included.
  const VariantInfo pipelined = find_registered("tensor-matmul/pipelined");
  const AccessModel mma = pipelined.model(shape, DType::tf32);
  ASSERT_FALSE(mma.tensor_cores_read_shared);
  counters.grid_blocks = mma.blocks;
  counters.ld_wavefronts = static_cast<double>(predict(mma).ld_wavefronts);
  counters.addr_ld_wavefronts = 0.5 * counters.ld_wavefronts;  // ldmatrix left out
  const auto measured = nlohmann::json::parse(explain::render_json(
      explain::explain(pipelined, shape, DType::tf32, explain::arch_limits(9, 0), &counters, nullptr)))["measured"];
  EXPECT_EQ(measured["ld_wavefronts"]["measured"].get<double>(), counters.ld_wavefronts);
}

// `explain --all`: every modelled variant in every type it runs, one JSON object each.
TEST(ExplainCli, AllExplainsEveryModelledVariantInEveryType) {
  using smemlab::testing::run_cli;
  std::size_t expected = 0;
  for (const auto& v : registered_variants())
    if (v.model != nullptr) expected += v.dtypes.size();
  const auto r = run_cli({"explain", "--all", "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), expected);
  std::set<std::string> seen;
  for (const auto& e : doc) {
    EXPECT_FALSE(e["model"].is_null()) << e["variant"];
    EXPECT_FALSE(e.contains("measured")) << e["variant"];
    seen.insert(e["variant"].get<std::string>() + " " + e["type"].get<std::string>());
  }
  EXPECT_EQ(seen.size(), expected);  // no variant and type twice
  for (const auto& args : {std::vector<std::string>{"explain", "--all", "matmul/naive"},
                           std::vector<std::string>{"explain", "--all", "--size", "64"}}) {
    const auto bad = run_cli(args);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("explain --all takes no variant, --size or --type"), std::string::npos) << bad.err;
  }
}

// What `explain --all --measure` prints when only the wavefronts were measured: the rows of
// the counters it did not read are left out of the text and null in the JSON.
TEST(ExplainRender, WavefrontsAloneLeaveTheOtherCountersOut) {
  const VariantInfo v = find_registered("matmul/smem_tile32");
  const Shape shape = find_family("matmul").canonical(parse_shape("2048"));
  const Prediction p = predict(v.model(shape, DType::f32));
  const double nan = std::nan("");
  const explain::Measurement counters{"tiled_static_kernel<32>(GemmArgs)", v.model(shape, DType::f32).blocks,
                                      static_cast<double>(p.ld_wavefronts), nan,
                                      static_cast<double>(p.st_wavefronts), 0,
                                      static_cast<double>(p.st_wavefronts), nan, nan, nan, nan, {}};
  const explain::Explanation e = explain::explain(v, shape, DType::f32, explain::arch_limits(9, 0), &counters);
  const std::string text = explain::render_text(e);
  expect_readable(text);
  for (const char* absent : {"bank conflicts (", "from DRAM", "achieved", "top stalls"})
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << "\n" << text;
  const auto m = nlohmann::json::parse(explain::render_json(e))["measured"];
  EXPECT_EQ(m["within_tolerance"], true);
  EXPECT_TRUE(m["bank_conflicts"]["measured"].is_null());
  EXPECT_TRUE(m["bytes"]["dram"].is_null());
  EXPECT_TRUE(m["top_stalls"].empty());
}

// One Nsight Compute session for many kernels: which requests share a bench process, the
// script that runs them, and ncu's output read back, on a made-up output.
TEST(ExplainMeasure, OneSessionAttributesEachLaunchToItsRequest) {
  const auto request = [](const char* id, const char* size, DType type) {
    static std::vector<std::unique_ptr<VariantInfo>> kept;  // the requests point at them
    kept.push_back(std::make_unique<VariantInfo>(find_registered(id)));
    const VariantInfo& v = *kept.back();
    const Shape shape = find_family(v.family).canonical(parse_shape(size));
    return explain::MeasureRequest{&v, shape, type, v.model(shape, type)};
  };
  const std::vector<explain::MeasureRequest> requests{
      request("matmul/smem_tile16", "64", DType::f32), request("matmul/smem_tile32", "64", DType::f32),
      request("reduction/shared_dynamic", "4096", DType::f32),
      request("reduction/shared_dynamic", "4096", DType::f64)};
  const auto processes = explain::detail::group_requests(requests);
  // The two tiles differ in their kernels' names and share a process; the reduction's types do not.
  ASSERT_EQ(processes, (std::vector<std::vector<std::size_t>>{{0, 1}, {2}, {3}}));

  const std::string script = explain::detail::measure_script(requests, processes, "/opt/it's/smemlab", 1);
  EXPECT_EQ(std::count(script.begin(), script.end(), '\n'), 3);
  EXPECT_NE(script.find("'/opt/it'\\''s/smemlab' --device 1 bench --variant 'matmul/smem_tile16,matmul/smem_tile32' "
                        "--size '64x64x64' --type float"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("echo \"smemlab-measure-failed 2 $?\""), std::string::npos) << script;

  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",)"
      R"("Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  const auto row = [](int id, int pid, const char* kernel, const char* metric, const char* value) {
    return fmt::format(R"row("{}","{}","smemlab","h","{}","1","13","(256, 1, 1)","(8, 1, 1)","0","9.0","m","{}","","{}")row",
                       id, pid, kernel, metric, value);
  };
  const char* ld = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  const char* st = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
  const char* l1_st = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum";
  const char* addr_ld = "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum";
  const std::string text = fmt::format(
      "smemlab-measure-process 0 100\nsmemlab-measure-process 1 200\nsmemlab-measure-process 2 300\n"
      "smemlab-measure-failed 2 1\n==PROF== Disconnected\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n",
      header, row(0, 100, "void smemlab::matmul::tiled_static_kernel<16>(GemmArgs)", ld, "1,000"),
      row(0, 100, "void smemlab::matmul::tiled_static_kernel<16>(GemmArgs)", addr_ld, "900"),
      row(0, 100, "void smemlab::matmul::tiled_static_kernel<16>(GemmArgs)", st, "40"),
      row(0, 100, "void smemlab::matmul::tiled_static_kernel<16>(GemmArgs)", l1_st, "44"),
      row(1, 100, "void smemlab::matmul::tiled_static_kernel<32>(GemmArgs)", ld, "500"),
      row(2, 100, "void smemlab::matmul::tiled_static_kernel<32>(GemmArgs)", ld, "700"),
      row(3, 200, "void smemlab::reduce::(anonymous namespace)::shared_dynamic_kernel<float>(const float *)", ld,
          "90"),
      row(4, 300, "void smemlab::reduce::(anonymous namespace)::shared_dynamic_kernel<double>(const double *)", ld,
          "90"),
      row(5, 999, "void smemlab::matmul::tiled_static_kernel<16>(GemmArgs)", ld, "5"));
  const auto results = explain::detail::read_measurements(text, requests, processes, explain::Counters::kWavefronts);
  ASSERT_EQ(results.size(), 4u);
  ASSERT_TRUE(results[0].measurement) << results[0].error;
  EXPECT_EQ(results[0].measurement->ld_wavefronts, 1000);  // "1,000": ncu's thousands separator
  EXPECT_EQ(results[0].measurement->st_wavefronts, 40);
  EXPECT_EQ(results[0].measurement->l1_st_wavefronts, 44);
  EXPECT_EQ(results[0].measurement->addr_ld_wavefronts, 900);
  EXPECT_TRUE(std::isnan(results[0].measurement->dram_bytes));
  ASSERT_TRUE(results[1].measurement) << results[1].error;
  EXPECT_EQ(results[1].measurement->ld_wavefronts, 700);  // of its launches, the one with the most
  ASSERT_TRUE(results[2].measurement) << results[2].error;
  EXPECT_FALSE(results[3].measurement);
  EXPECT_NE(results[3].error.find("exited with status 1"), std::string::npos) << results[3].error;
  EXPECT_THROW((void)explain::detail::read_measurements("==ERROR== no such metric\n", requests, processes,
                                                        explain::Counters::kWavefronts),
               std::runtime_error);
}

// A measured launch with fewer blocks than the model counts: the counts per block are scaled to
// it, the accesses counted per launch (a grid-stride loop's atomics) are not, and the atomics
// count toward the tolerance.
TEST(ExplainMeasure, PerLaunchAccessesAreNotScaledToTheMeasuredGrid) {
  const VariantInfo v = find_registered("histogram/shared_atomics");
  const Shape shape = find_family(v.family).canonical(parse_shape("2^24"));
  const AccessModel model = v.model(shape, DType::u8);
  const Prediction p = predict(model);
  ASSERT_GT(p.atom_wavefronts, 0);
  ASSERT_EQ(predict(model, true).atom_wavefronts, p.atom_wavefronts);  // the atomics: per launch
  ASSERT_EQ(predict(model, true).ld_wavefronts, 0);                    // the sum: per block
  explain::Measurement counters;
  counters.kernel = "privatized_kernel<unsigned char>";
  counters.grid_blocks = model.blocks / 4;
  counters.ld_wavefronts = static_cast<double>(p.ld_wavefronts) / 4;
  counters.st_wavefronts = static_cast<double>(p.st_wavefronts) / 4;
  counters.l1_st_wavefronts = counters.st_wavefronts;
  counters.atom_wavefronts = static_cast<double>(p.atom_wavefronts);
  const auto measured = [&] {
    return *explain::explain(v, shape, DType::u8, explain::arch_limits(9, 0), &counters).measured;
  };
  const explain::MeasuredExplanation m = measured();
  EXPECT_DOUBLE_EQ(m.model_scale, 0.25);
  EXPECT_DOUBLE_EQ(m.ld_wavefronts.predicted, static_cast<double>(p.ld_wavefronts) / 4);
  EXPECT_DOUBLE_EQ(m.st_wavefronts.predicted, static_cast<double>(p.st_wavefronts) / 4);
  EXPECT_DOUBLE_EQ(m.atom_wavefronts.predicted, static_cast<double>(p.atom_wavefronts));
  EXPECT_TRUE(m.within_tolerance);
  counters.atom_wavefronts *= 1.1;  // atomics 10% off: outside the tolerance
  EXPECT_FALSE(measured().within_tolerance);
}

// A model whose counts depend on the data is measured on its kernel's first launch (the
// benchmark's first input), by launch number, not on the launch with the most wavefronts; the
// atomics are read from their own counter.
TEST(ExplainMeasure, DataDependentModelsTakeTheFirstLaunch) {
  const VariantInfo& v = find_registered("histogram/shared_atomics");
  const Shape shape = find_family(v.family).canonical(parse_shape("2^20"));
  const std::vector<explain::MeasureRequest> requests{{&v, shape, DType::u8, v.model(shape, DType::u8)}};
  ASSERT_TRUE(requests[0].model.first_launch);
  const auto processes = explain::detail::group_requests(requests);
  const std::string header =
      R"("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",)"
      R"("Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value")";
  const auto row = [](int id, const char* value) {
    return fmt::format(R"row("{}","100","smemlab","h","void smemlab::histogram::detail::privatized_kernel<unsigned char>)row"
                       R"row((const T1 *)","1","13","(256, 1, 1)","(8, 1, 1)","0","9.0","m",)row"
                       R"row("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum","","{}")row",
                       id, value);
  };
  const std::string text = fmt::format("smemlab-measure-process 0 100\n{}\n{}\n{}\n{}\n", header, row(10, "900"),
                                       row(2, "300"), row(11, "950"));
  const auto results = explain::detail::read_measurements(text, requests, processes, explain::Counters::kWavefronts);
  ASSERT_TRUE(results[0].measurement) << results[0].error;
  EXPECT_EQ(results[0].measurement->atom_wavefronts, 300);  // launch 2, before launch 10
}

// The choosers say what they launch and why: the choice with its predicted time, then the next
// three with theirs, from the model and the rates of the measured device when there is no GPU.
TEST(ExplainChooser, NamesTheChoiceAndTheRunnersUp) {
  for (const auto& [id, size] : {std::pair{"matmul/autotuned", "333x777x5000"},
                                 std::pair{"tensor-matmul/auto", "256x256x65536"}}) {
    SCOPED_TRACE(id);
    std::optional<VariantInfo> v;  // a copy: a family builds its records on each call
    for (const BenchFamily* f : families())
      for (const VariantInfo& info : f->variants())
        if (info.id() == id) v = info;
    ASSERT_TRUE(v.has_value());
    ASSERT_NE(v->launch_plan, nullptr);
    const std::string plan = v->launch_plan(parse_shape(size), v->dtypes.front());
    EXPECT_NE(plan.find("predicted"), std::string::npos) << plan;
    const auto runners = plan.find("runners-up: ");
    ASSERT_NE(runners, std::string::npos) << plan;
    // Three runners-up, each with a time in microseconds.
    const std::string rest = plan.substr(runners);
    EXPECT_EQ(std::count(rest.begin(), rest.end(), ','), 2) << rest;
    std::size_t times = 0;
    for (std::size_t at = rest.find(" us"); at != std::string::npos; at = rest.find(" us", at + 1)) ++times;
    EXPECT_EQ(times, 3U) << rest;
  }
}

namespace {
// The scan model of `name` at `size` (int32) against the load and store wavefronts Nsight Compute
// measured: within the 5% explain_vs_ncu allows.
void expect_scan_model_near(const std::string& name, const std::string& size, double ld, double st) {
  using smemlab::testing::run_cli;
  const auto now = nlohmann::json::parse(
      run_cli({"explain", "scan/" + name, "--size", size, "--type", "int32", "--format", "json"}).out);
  const auto& predicted = now["model"]["predicted"];
  EXPECT_NEAR(predicted["ld_wavefronts"].get<double>(), ld, 0.05 * ld) << "ld";
  EXPECT_NEAR(predicted["st_wavefronts"].get<double>(), st, 0.05 * st) << "st";
}
}  // namespace

// The scan's tree steps against the wavefronts Nsight Compute measured on an H100 at 2^20
// (committed).
TEST(ExplainScan, TreeModelsMatchTheCommittedMeasurements) {
  std::ifstream file(std::string(SMEMLAB_DOCS_DATA_DIR) + "/scan-h100-measured-2p20.json");
  ASSERT_TRUE(file.good());
  const auto committed = nlohmann::json::parse(file)["explained"];
  ASSERT_EQ(committed.size(), 3U);
  for (const auto& [name, doc] : committed.items()) {
    SCOPED_TRACE(name);
    const auto& measured = doc["measured"];
    expect_scan_model_near(name, "2^20", measured["ld_wavefronts"]["measured"].get<double>(),
                           measured["st_wavefronts"]["measured"].get<double>());
  }
}

// The tile scans of 04 and 05 against the wavefronts Nsight Compute measured on an H100 and an
// H200 at 2^24 (committed).
TEST(ExplainScan, TileModelsMatchTheCommittedMeasurements) {
  std::ifstream file(std::string(SMEMLAB_DOCS_DATA_DIR) + "/scan-tile-models-measured-2p24.json");
  ASSERT_TRUE(file.good());
  const auto measured = nlohmann::json::parse(file)["measured"];
  ASSERT_EQ(measured.size(), 2U);
  for (const auto& [device, variants] : measured.items()) {
    ASSERT_EQ(variants.size(), 2U);
    for (const auto& [name, counts] : variants.items()) {
      SCOPED_TRACE(device + " " + name);
      expect_scan_model_near(name, "2^24", counts["ld_wavefronts"].get<double>(),
                             counts["st_wavefronts"].get<double>());
    }
  }
}

// The histogram steps' models against the wavefronts Nsight Compute measured on an H100 at 2^24
// on the benchmark's first input (committed): the counts per block scaled to the measured grid,
// the atomics (counted for the launch) as they are.
TEST(ExplainHistogram, ModelsMatchTheCommittedMeasurements) {
  using smemlab::testing::run_cli;
  std::ifstream file(std::string(SMEMLAB_DOCS_DATA_DIR) + "/histogram-models-measured-2p24-h100.json");
  ASSERT_TRUE(file.good());
  const auto measured = nlohmann::json::parse(file)["measured"];
  ASSERT_EQ(measured.size(), 3U);
  for (const auto& [name, types] : measured.items()) {
    for (const auto& [type, counts] : types.items()) {
      SCOPED_TRACE(name + " " + type);
      const auto doc = nlohmann::json::parse(
          run_cli({"explain", "histogram/" + name, "--size", "2^24", "--type", type, "--format", "json"}).out);
      const auto& model = doc["model"];
      const double scale = counts["grid_blocks"].get<double>() / model["blocks"].get<double>();
      std::map<std::string, double> predicted;
      for (const auto& a : model["accesses"])
        predicted[a["op"].get<std::string>()] +=
            a["total_wavefronts"].get<double>() * (a["per_launch"].get<bool>() ? 1.0 : scale);
      for (const std::string op : {"ld", "st", "atom"}) {
        const double want = counts[op + "_wavefronts"].get<double>();
        EXPECT_NEAR(predicted[op], want, 0.05 * want) << op;
      }
    }
  }
}
