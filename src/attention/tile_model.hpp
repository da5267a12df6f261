#pragma once
// How many query rows a Hopper attention block takes at head dim 64 (step 07): two consumer
// warpgroups (Q tiles of 128 rows) or three (192 rows). Three keep more warps at work on an SM,
// which at head dim 64 waits on its own chain of S, softmax and P V more than on anything else,
// but a Q tile of 192 rows pads more rows at the end of a sequence and more keys on a causal
// diagonal. The model weighs the two: the scores each tiling computes, padding included, over
// the rate at which it computes them.
#include "smemlab/attention.hpp"

namespace smemlab::attention::detail {

// The scores (one query row times one key) one (batch, head) computes with Q tiles of `rows`
// rows and K/V tiles of `keys` keys, as the Hopper steps compute them: every row of a Q tile,
// padding included, times every key tile up to the last key its last row sees.
[[nodiscard]] long long computed_scores(const Shape& s, int rows, int keys);

// Whether step 07 takes three consumer warpgroups at head dim 64: when its computed scores over
// its measured rate take less time than two consumers' (256-key tiles without a mask, 128 with
// one).
[[nodiscard]] bool three_consumers_pay(const Shape& s);

}  // namespace smemlab::attention::detail
