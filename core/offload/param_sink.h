// Where a step writes updated parameter values, one contiguous span at a time in increasing offsets: a tensor
// (TensorSink) or a store that keeps part of them on NVMe (ParamShardStore). The fused CPU-Adam writes straight into
// span(); commit() says the span is filled; finish() ends one pass over the elements.
#pragma once
#include <torch/torch.h>

#include <cstdint>
#include <limits>

namespace fts {

class ParamSink {
public:
    virtual ~ParamSink() = default;
    virtual int64_t elements() const = 0;
    virtual torch::ScalarType dtype() const = 0;
    // The most elements one span may have (writers split larger pieces).
    virtual int64_t maxSpan() const { return INT64_MAX; }
    // n elements at offset to fill (contiguous; on the CPU or the training device). Spans of one pass come in
    // increasing, non-overlapping order.
    virtual torch::Tensor span(int64_t offset, int64_t n) = 0;
    virtual void commit(int64_t offset, int64_t n) = 0;
    virtual void finish() = 0;
};

// A whole tensor (elements() values, contiguous): spans are views, commit and finish do nothing.
class TensorSink : public ParamSink {
public:
    explicit TensorSink(torch::Tensor t) : m_t(t.view({-1})) {}
    int64_t elements() const override { return m_t.numel(); }
    torch::ScalarType dtype() const override { return m_t.scalar_type(); }
    torch::Tensor span(int64_t offset, int64_t n) override { return m_t.narrow(0, offset, n); }
    void commit(int64_t, int64_t) override {}
    void finish() override {}
    const torch::Tensor& tensor() const { return m_t; }

private:
    torch::Tensor m_t;
};

}  // namespace fts
