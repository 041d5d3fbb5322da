// The GEMM convolution solvers (lib/solver/gemm_solvers.cpp): convolution as oneDNN's matmul
// primitive on the caller's NCHW buffers, with alpha / beta and groups in every direction.
#pragma once

#include "solver/solver.hpp"

#include <cstddef>

namespace dnncompat::solver {

// Id 8, "gemm.im2col" (the registry's instance): explicit im2col of a chunk of images, then one
// batched matmul per chunk (2-D, FLOAT, packed NCHW x / y, KCRS w; any stride, pad, dilation and
// groups). Workspace: the chunk's im2col matrices (at most ~64 MiB, at least one image;
// bwd-filter also a packed copy of the chunk's dy).
const Solver &gemm_im2col_solver();

// Id 9, "gemm.1x1-nchw" (the registry's instance): 1x1 filter, stride 1, no padding: fwd and
// bwd-data are one batched matmul on the packed NCHW tensors themselves (any spatial rank, FLOAT;
// no workspace); bwd-filter packs chunks of x and dy (workspace, at most ~64 MiB) and runs one
// matmul per chunk.
const Solver &gemm_1x1_solver();

// Id 10, "gemm.winograd-4x4" (the registry's instance): Winograd F(4x4, 3x3), fwd and bwd-data,
// 2-D, FLOAT, packed NCHW x / y, KCRS w, stride 1, no dilation or groups (bwd-data: leading pad
// at most 2). Per call: the filter's transform U [36][out][in]; per chunk of tile rows (V and M
// together at least 8 MiB or U's size, at most the chunk cap): the input transform V, one batched matmul M = U x V
// (oneDNN), the output transform with alpha / beta (lib/solver/winograd_transforms.hpp). Workspace: U, V, M.
const Solver &gemm_winograd_solver();

// The largest workspace chunk (bytes) the three solvers use (gemm.winograd-4x4: its V and M); 0
// restores the default (64 MiB).
// Returns the previous cap. A tuning and test hook: a small cap splits small problems into
// several chunks. workspace() follows the cap in force when it is called.
std::size_t set_gemm_chunk_cap(std::size_t bytes);

} // namespace dnncompat::solver
