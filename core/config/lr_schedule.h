// DeepSpeed's learning-rate schedules (WarmupLR, WarmupDecayLR, WarmupCosineLR of DeepSpeed 0.19.8's
// deepspeed/runtime/lr_schedules.py) as pure functions of the optimizer step. Torch-free math.
// Invariant: learningRateAt(s, lr, k) equals the lr DeepSpeed's engine uses in its k-th optimizer step.
#pragma once
#include <cstdint>

#include "core/config/train_config.h"

namespace fts {

// The learning rate of the optimizer step with 0-based index `step` (the step-th update applied).
//
// How DeepSpeed gets there: the scheduler is built with last_batch_iteration = -1 and its constructor
// writes get_lr() at iteration -1 into the optimizer; the engine calls lr_scheduler.step() after every
// applied optimizer.step() (fp16 steps skipped for overflow do not advance it). So update k runs with the
// schedule at iteration i = k - 1:
//   k = 0 (i = -1): WarmupLR / WarmupDecayLR -> warmup_min_lr; WarmupCosineLR -> 0.0 (DeepSpeed returns
//                   0 before the schedule starts, whatever warmup_min_ratio is).
//   k >= 1, with W = max(2, warmup_num_steps), T = total_num_steps:
//   warm-up factor g(i) for i < W: log: ln(i + 1) / ln(W); linear: i / W.
//   WarmupLR:       min + (max - min) * (i < W ? g(i) : 1)
//   WarmupDecayLR:  min + (max - min) * (i < W ? g(i) : max(0, (T - i) / max(1, T - W)))
//   WarmupCosineLR: optimizerLr * r, r = i < W ? warmup_min_ratio + g(i) * (1 - warmup_min_ratio)
//                   : max(0, c + (1 - c) * (1 + cos(pi * min(1, (i - W + 1) / max(1, T - W)))) / 2),
//                   c = cos_min_ratio.
//   None:           optimizerLr at every step.
// `step` counts applied updates: a caller skipping an update (fp16 overflow) does not advance it.
// warmupMaxLr must already be resolved (the config parser sets WarmupLR's default, the optimizer's lr).
// Throws std::invalid_argument for step < 0.
//
// The Trainer's schedulers (Hf*: transformers' get_scheduler) are LambdaLR: update k runs with
// optimizerLr * lambda(k), lambda as in transformers/optimization.py (warm-up k / max(1, W) from 0).
double learningRateAt(const SchedulerConfig& s, double optimizerLr, int64_t step);

}  // namespace fts
