// cluster_occupancy.cu - how many clusters of 1, 2 and 4 blocks the GPU runs
// at once when each block takes a whole SM's shared memory (as Kiln's
// persistent TMA matmul does: 384 threads, one block per SM). A persistent
// grid larger than that count runs its last clusters in a second wave.
// On the GPU machine: nvcc -arch=sm_90a -o /tmp/co bench/probe/cluster_occupancy.cu && /tmp/co
#include <cstdio>
#include <cuda_runtime.h>

__global__ void persistent_block() {
  extern __shared__ char smem[];
  smem[threadIdx.x] = 0;
}

int main() {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    std::fprintf(stderr, "cluster_occupancy: no CUDA device\n");
    return 1;
  }
  const int smem = 200 * 1024;
  cudaFuncSetAttribute(persistent_block,
                       cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(persistent_block,
                       cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  std::printf("%s: %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int size : {1, 2, 4, 8}) {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(size * 64);
    config.blockDim = dim3(384);
    config.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = size;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
    int clusters = 0;
    cudaError_t e =
        cudaOccupancyMaxActiveClusters(&clusters, persistent_block, &config);
    if (e != cudaSuccess)
      std::printf("cluster %d: %s\n", size, cudaGetErrorString(e));
    else
      std::printf("cluster %d: %d clusters at once (%d blocks)\n", size,
                  clusters, clusters * size);
  }
  return 0;
}
