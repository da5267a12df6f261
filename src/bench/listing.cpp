#include "bench/listing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "bench/registry.hpp"
#include "core/text.hpp"

namespace smemlab {
namespace {

std::vector<const BenchFamily*> or_default(std::span<const BenchFamily* const> shown) {
  if (!shown.empty()) return {shown.begin(), shown.end()};
  std::vector<const BenchFamily*> out;
  for (const BenchFamily* f : families())
    if (f->spec().in_default_run) out.push_back(f);
  return out;
}

// "01  matmul/naive   one thread an output, ...": the step (blank for a variant without one),
// the full name, and the description with its tutorials, wrapped under itself.
std::string variant_line(const VariantInfo& v, std::size_t name_width) {
  const std::optional<int> step = v.step();
  const std::string head =
      fmt::format("{:>2}  {:<{}}  ", step ? fmt::format("{:02}", *step) : "", v.id(), name_width);
  const std::string from = tutorial_titles(v);
  const std::string text =
      std::string(v.description) + (from.empty() ? "" : " (from " + from + ")");
  return head + wrap(text, columns(head), kListColumns) + "\n";
}

}  // namespace

std::string render_list(std::span<const BenchFamily* const> shown) {
  const std::vector<const BenchFamily*> listed = or_default(shown);
  std::size_t name_width = 0;
  bool any_steps = false;
  for (const BenchFamily* f : listed)
    if (f->spec().listing == nullptr)
      for (const auto& v : f->variants()) {
        name_width = std::max(name_width, v.id().size());
        any_steps = any_steps || v.step().has_value();
      }
  std::string out;
  if (any_steps) {
    out = wrap("Each family's variants in teaching order, the reference first. The number is the "
               "step: NN of the variant's file, src/<family>/NN_*.cu; a description that starts "
               "\"06 with\" builds on step 06 of its family.",
               0, kListColumns) +
          "\n";
  }
  for (const BenchFamily* f : listed) {
    if (!out.empty()) out += "\n";
    if (f->spec().listing != nullptr) {
      out += f->spec().listing(kListColumns);
      continue;
    }
    for (const auto& v : f->variants()) out += variant_line(v, name_width);
  }
  if (shown.empty())
    for (const BenchFamily* f : families())
      if (!f->spec().in_default_run)
        out += fmt::format("\nNot in a default run: {} ({}; smemlab list --family {}).\n",
                           f->name(), count_of(std::ssize(f->variants()), "variant"), f->name());
  return out;
}

std::string list_names(std::span<const BenchFamily* const> shown) {
  std::string out;
  for (const BenchFamily* f : or_default(shown))
    for (const auto& v : f->variants()) out += v.id() + "\n";
  return out;
}

}  // namespace smemlab
