// anon_scale_a.cu and anon_scale_b.cu: two files of one library, each with
// its own `scale` kernel in an anonymous namespace (tests/data/cubins/README.md).
namespace {
__global__ void scale(float* p) { p[threadIdx.x] *= 2.0f; }
}  // namespace
void scale_a(float* p) { scale<<<1, 32>>>(p); }
