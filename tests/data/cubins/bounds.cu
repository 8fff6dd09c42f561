// Kernels whose block size is required or bounded below or off the warp size.
__global__ void __block_size__((32, 1, 1)) fixed32(float* a) { a[threadIdx.x] += 1.f; }
__global__ void __launch_bounds__(48) lb48(float* a) { a[threadIdx.x] *= 3.f; }
__global__ void __launch_bounds__(16) lb16(float* a) { a[threadIdx.x] *= 2.f; }
