#pragma once
// Rendering benchmark reports and device descriptions.
#include <string>
#include <string_view>

#include "bench/bench.hpp"
#include "core/device_info.hpp"

namespace smemlab {

// summary: one screen, ratios per variant and size; the others: every column of every row.
enum class Format { summary, table, csv, json, markdown };

// Throws UsageError for an unknown format name.
[[nodiscard]] Format parse_format(std::string_view name);
// The format --output FILE gets when none is named: from its extension (.json, .csv, .md),
// else the full table.
[[nodiscard]] Format format_for_file(std::string_view path);
[[nodiscard]] std::string render(const BenchReport& report, Format format);
[[nodiscard]] std::string describe(const DeviceInfo& device);

// Throws UsageError when `path` could not be written (missing or read-only directory, or a
// directory itself); an empty path is standard output and always passes.
void check_writable(const std::string& path);
// Writes beside the target and renames over it: a reader never sees half a file.
void write_atomically(const std::string& path, const std::string& text);

}  // namespace smemlab
