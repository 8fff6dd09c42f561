/* A small CPU program for interleaved A/B demos: a fixed amount of real work
 * (an xorshift hash chain over a 64 KiB table). Built twice by
 * scripts/ab_real.sh: as is, and with -DEXTRA_WORK_PERCENT=10, which runs 10%
 * more iterations of the same loop -- a genuine slowdown, not a sleep. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef EXTRA_WORK_PERCENT
#define EXTRA_WORK_PERCENT 0
#endif

#define TABLE_SIZE 16384u
#define BASE_ITERATIONS 3000000ull

int main(int argc, char** argv) {
  uint64_t iterations = BASE_ITERATIONS;
  if (argc > 1) iterations = strtoull(argv[1], NULL, 10);
  iterations += iterations * EXTRA_WORK_PERCENT / 100;
  static uint32_t table[TABLE_SIZE];
  for (uint32_t i = 0; i < TABLE_SIZE; ++i) table[i] = i * 2654435761u;
  uint64_t x = 88172645463325252ull;
  for (uint64_t i = 0; i < iterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint32_t slot = (uint32_t)(x & (TABLE_SIZE - 1));
    table[slot] += (uint32_t)(x >> 32);
    x += table[(slot * 7u) & (TABLE_SIZE - 1)];
  }
  /* Print the checksum so the work cannot be optimised away. */
  printf("%llu\n", (unsigned long long)x);
  return 0;
}
