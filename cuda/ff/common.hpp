//! Portability macros shared by every header under cuda/: the same source is
//! compiled by g++ (host tests in CI) and by nvcc (device kernels).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_HDC __host__ __device__ constexpr
#else
#define CUZK_HD inline
#define CUZK_HDC constexpr
#endif

#if defined(__CUDA_ARCH__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif
