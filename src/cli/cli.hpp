#pragma once
// The smemlab command line, callable in-process so the tests can drive every error path.
#include <ostream>

namespace smemlab::cli {

// Exit status: 0 success; 1 runtime failure (no device, CUDA error, failed verification);
// 2 bad input, reported as one line on `err` before any device work. `err_is_terminal` turns on
// bench's progress bar.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, bool err_is_terminal = false);

}  // namespace smemlab::cli
