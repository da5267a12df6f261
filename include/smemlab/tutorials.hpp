#pragma once
// The tutorials the first kernels of each family come from, by title (translated; the original
// as published beside it). A variant that reproduces a tutorial's kernel names it in its record.
#include <string_view>

namespace smemlab {

struct Tutorial {
  std::string_view title;     // in English
  std::string_view original;  // as published
  std::string_view covers;    // what of it smemlab reproduces
};

namespace tutorials {

inline constexpr Tutorial kPrimerSharedMemory{
    "Primer (6): Shared Memory", "CUDA 编程入门（6）：共享内存",
    "arithmetic intensity; the naive matmul and the 32x32 shared-memory tiled matmul"};
inline constexpr Tutorial kSharedMemory{
    "Shared Memory", "共享内存",
    "reduction on the CPU, in global and in shared memory; transpose through a shared tile; banks, "
    "broadcast and padding"};
inline constexpr Tutorial kBankConflicts{
    "Shared Memory and Bank Conflicts", "CUDA编程入门-共享内存以及Bank Conflict",
    "matmul in static and dynamic shared memory; a bank-conflicting tile and its padded fix"};
inline constexpr Tutorial kMatmulInPractice{
    "Matmul Optimisation in Practice", "矩阵乘 Matmul 性能优化实践",
    "cache-blocking matmul and 1D thread tiling (64x64 tile, K-step 8, 8 outputs a thread)"};
inline constexpr Tutorial kGuideMatmul{
    "Matrix Multiplication Using Shared Memory", "matrix mulplication using shared memory",
    "the CUDA programming guide's matmul: a Matrix {width, height, stride} and sub-matrix tiles"};

inline constexpr const Tutorial* kAll[] = {&kPrimerSharedMemory, &kSharedMemory, &kBankConflicts,
                                           &kMatmulInPractice, &kGuideMatmul};

}  // namespace tutorials
}  // namespace smemlab
