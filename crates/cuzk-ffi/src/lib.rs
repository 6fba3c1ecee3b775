//! The bridge to cuzk's C++ host code and CUDA kernels.
