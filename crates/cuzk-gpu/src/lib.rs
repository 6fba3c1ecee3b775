//! Safe GPU API: devices, kernels, typed CUDA errors.
#![forbid(unsafe_code)]
