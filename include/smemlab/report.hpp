#pragma once
// Rendering benchmark reports and device descriptions.
#include <string>
#include <string_view>

#include "smemlab/bench.hpp"
#include "smemlab/device_info.hpp"

namespace smemlab {

enum class Format { table, csv, json, markdown };

// Throws UsageError for an unknown format name.
[[nodiscard]] Format parse_format(std::string_view name);
[[nodiscard]] std::string render(const BenchReport& report, Format format);
[[nodiscard]] std::string describe(const DeviceInfo& device);

}  // namespace smemlab
