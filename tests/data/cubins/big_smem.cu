// 16 KiB of static shared memory: in a relocatable (-rdc) cubin its
// .nv.shared section (type 0x7000000a) has a size but no bytes in the file.
__global__ void big_smem(float* out) {
  __shared__ float tile[4096];
  tile[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[4095 - threadIdx.x];
}
