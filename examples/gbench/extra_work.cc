// The one thing the head build of examples/gbench changes: how much extra
// work BM_HashChain does, in percent. It lives in its own translation unit so
// that both builds of kernels.cc are the same machine code (a compile-time
// constant inside kernels.cc would change its code layout, and with it the
// speed of unrelated benchmarks).
#ifndef HASH_EXTRA_WORK_PERCENT
#define HASH_EXTRA_WORK_PERCENT 0
#endif

int HashExtraWorkPercent() { return HASH_EXTRA_WORK_PERCENT; }
