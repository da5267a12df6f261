#pragma once
// What `smemlab explain` carries from the source tree, embedded at build time
// (cmake/embed_explain_sources.cmake): the step files' opening comments and the committed
// benchmark runs.
#include <span>
#include <string_view>

namespace smemlab::explain {

// One variant's step file: the opening comment says what the step changed and should buy.
struct EmbeddedStep {
  std::string_view path;    // "src/matmul/05_thread_tile_1d.cu"
  std::string_view family;  // as the variant's record names it
  std::string_view name;
  std::string_view header;  // the opening comment without its "//" markers
};

// A committed benchmark run as `smemlab bench --format json` wrote it.
struct EmbeddedFile {
  std::string_view path;  // "docs/results/data/bench-full-h200.json"
  std::string_view text;
};

[[nodiscard]] std::span<const EmbeddedStep> embedded_steps();
[[nodiscard]] std::span<const EmbeddedFile> embedded_results();

}  // namespace smemlab::explain
