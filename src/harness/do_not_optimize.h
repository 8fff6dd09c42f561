// Barriers that keep the optimizer from deleting benchmarked work whose
// results are never read. The empty asm statements are opaque to GCC and
// Clang: a value passed in must be materialised, and a "memory" clobber makes
// the compiler assume all memory may be read or written at that point.
#pragma once

namespace gpugate {

/// Forces `value` to be computed (kept in a register or in memory).
template <class T>
inline void DoNotOptimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

/// Marks the memory behind `p` as escaped: stores through it must happen.
inline void EscapePointer(const void* p) { asm volatile("" : : "g"(p) : "memory"); }

/// Assumes every reachable memory location may be read or written here, so
/// pending stores are not elided and loads are not hoisted across the barrier.
inline void ClobberMemory() { asm volatile("" : : : "memory"); }

}  // namespace gpugate
