// Activation checkpointing of one transformer block: the forward keeps only the block's input; backward runs the
// block again (same RNG state, same autocast settings) and differentiates that. Same gradients, less memory.
// Invariant: `block` must be a pure function of its input and `params` (plus captured constants), so the recompute
// reproduces the forward exactly; the RNG state is restored so dropout draws the same masks.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include <torch/torch.h>

namespace fts {

using BlockFn = std::function<torch::Tensor(const torch::Tensor&)>;

// What a recompute needs to run a block again exactly as its forward ran: the state of the input device's default
// generator (dropout masks) and that device's autocast setting. Also used by ZeRO stage 3's gather-and-recompute.
struct ForwardReplay {
    std::optional<at::Generator> generator;
    at::Tensor rngState;
    c10::DeviceType deviceType = c10::DeviceType::CPU;
    bool autocast = false;
    at::ScalarType autocastDtype = at::kFloat;

    static ForwardReplay capture(const torch::Tensor& x);  // call just before the forward runs
    // fn(x) with grad mode on, the captured autocast setting and RNG state; both are put back afterwards.
    torch::Tensor rerun(const BlockFn& fn, const torch::Tensor& x);
};

// Returns block(x). When grad mode is on and x or a param requires grad, activations inside the block are not
// kept; they are recomputed during backward, which then delivers gradients to x and to every tensor in `params`.
torch::Tensor checkpointedBlock(const BlockFn& block, const torch::Tensor& x, const std::vector<torch::Tensor>& params);

}  // namespace fts
