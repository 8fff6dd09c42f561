"""A tiny pytest-benchmark suite for `gpugate compare` (see README.md here).

Six small pure-Python workloads (one so fast that pytest-benchmark times
several calls per round). Setting EXAMPLE_SLOWDOWN=1.3 makes
`test_sort_words` sort 30% more words, a known slowdown to look for.
"""
import os
import random

SLOWDOWN = float(os.environ.get("EXAMPLE_SLOWDOWN", "1"))

_rng = random.Random(7)
WORDS = ["".join(_rng.choice("abcdefghij") for _ in range(8)) for _ in range(4000)]
TEXT = " ".join(WORDS)
WORD_SET = set(WORDS)


def test_sort_words(benchmark):
    words = WORDS[: int(len(WORDS) * SLOWDOWN / 2)] * 2
    benchmark(sorted, words)


def test_split_text(benchmark):
    benchmark(TEXT.split)


def test_count_letters(benchmark):
    def count():
        counts = {}
        for ch in TEXT:
            counts[ch] = counts.get(ch, 0) + 1
        return counts

    benchmark(count)


def test_join_words(benchmark):
    benchmark(",".join, WORDS)


def test_set_of_words(benchmark):
    benchmark(set, WORDS)


def test_word_lookup(benchmark):
    benchmark(WORD_SET.__contains__, "abcdefgh")
