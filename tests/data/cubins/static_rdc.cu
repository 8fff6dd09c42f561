__global__ void pub(float* x) { x[0] = 1; }
static __global__ void stat_k(float* x) { x[1] = 2; }
void launch(float* x) { stat_k<<<1,1>>>(x); }
