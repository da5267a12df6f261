#include "attention/tile_model.hpp"

#include <algorithm>

namespace smemlab::attention::detail {
namespace {

// Three consumers' rate of scores over two consumers', at head dim 64 on an H200 (bf16; the
// measured time ratio times the ratio of computed scores, at N = 1,024, 2,048, 4,096 and 16,384):
// 1.111-1.137 against two consumers with 256-key tiles (no mask), 1.132-1.171 against two with
// 128-key tiles (causal). The smallest of each, rounded down to two decimals, so that three are
// taken only where they pay at their worst measured rate. Three consumers' times:
// docs/results/data/attention-three-consumers-overlapped-h200.json; two consumers' from the run
// before, docs/results/data/attention-three-consumers-h200.json (whose `persistent` row still had
// two consumers everywhere).
constexpr double kThreeConsumerRate = 1.11;
constexpr double kThreeConsumerRateCausal = 1.13;

}  // namespace

// Without a mask every Q tile meets every key tile: a closed form. With one, a sum over one
// head's Q tiles.
long long computed_scores(const Shape& s, int rows, int keys) {
  const long long q_tiles = (static_cast<long long>(s.q_len) + rows - 1) / rows;
  if (!s.causal) return q_tiles * rows * ((static_cast<long long>(s.kv_len) + keys - 1) / keys) * keys;
  const long long shift = static_cast<long long>(s.kv_len) - s.q_len;
  long long scores = 0;
  for (long long first = 0; first < s.q_len; first += rows) {
    const long long last = std::min<long long>(first + rows, s.q_len) - 1;
    const long long end = std::clamp<long long>(last + shift + 1, 0, s.kv_len);
    scores += static_cast<long long>(rows) * ((end + keys - 1) / keys) * keys;
  }
  return scores;
}

bool three_consumers_pay(const Shape& s) {
  const int two_keys = s.causal ? 128 : 256;
  const double rate = s.causal ? kThreeConsumerRateCausal : kThreeConsumerRate;
  const auto two = static_cast<double>(computed_scores(s, 128, two_keys));
  const auto three = static_cast<double>(computed_scores(s, 192, 128));
  return three < two * rate;
}

}  // namespace smemlab::attention::detail
