// The fixed work of --scenario pipeline and pipeline_turn (docs/bench.md,
// "Pipelines: a frame that moves as it is produced"): the producer makes
// each element of its block and the consumer transforms each element it
// receives, both with the same kernel, `passes` times z <- a*z + b per
// element, one complex multiply-add (4 multiplications, 4 additions) each.
// The elements are complex floats (cfloat), stored as two floats.
#pragma once

#include "core/shape.hpp"

namespace dri::bench::pipe {

using core::Index;

struct Cf {
    float re, im;
};

struct Kernel {
    float ar = 0, ai = 0, br = 0, bi = 0; // a and b
    int passes = 0;
    // false: produce and consume do nothing, so that a frame times the
    // moves alone (the producer marks pieces it did not write, the consumer
    // waits for pieces it does not read): the per-piece overhead.
    bool touch = true;
};

// a = i and b = 1 + 2i: with these every value stays a small integer
// (|re|, |im| <= 1027), so every pass is exact in float and the oracle is a
// closed form. They are read through volatile, so the compiler cannot fold
// the multiplications by 0 and 1 away: each pass costs a full complex
// multiply-add whatever the constants.
Kernel make_kernel(int passes);

// The producer: out[i] = the value of global element g0 + i (row-major
// linear index in the frame) of frame `frame`, after k.passes passes
// (nothing without k.touch).
void produce(Cf* out, Index n, Index g0, long long frame, const Kernel& k);

// The consumer: out[i] = k.passes passes applied to in[i], for i < n. `in`
// (a receive buffer, which may not be written) is read once (not at all
// without k.touch).
void consume(const Cf* in, Cf* out, Index n, const Kernel& k);

// The oracle: global element g of frame `frame` after m passes, from the
// closed form f^m(z) = i^m z + b (1 + i + ... + i^(m-1)) in integers,
// independent of the kernel's code and of the order of its operations.
Cf expected(Index g, long long frame, int m);

} // namespace dri::bench::pipe
