// same_name_x.cu and same_name_y.cu, each built as k.cu in a folder of its own
// (tests/data/cubins/README.md): their static kernels' names differ only by
// the folders' hashes.
__global__ void pub(float* x) { x[0] = 1; }
static __global__ void stat_k(float* x) { x[1] = 2; }
void launch(float* x) { stat_k<<<1, 1>>>(x); }
