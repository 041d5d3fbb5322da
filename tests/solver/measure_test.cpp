// solver::measure runs a solver on buffers at a caller's alignment: a time measured on memory
// aligned to less than a cache line is up to 1.5x a memory-bound kernel's on a caller's tensors
// (AVX-512 loads straddle two lines), and Find, --calibrate and the find-db would rank on it.
#include "core/aligned_buffer.hpp"
#include "core/machine_memory.hpp"
#include "problem/grammar.hpp"
#include "solver/invoker.hpp"
#include "solver/measure.hpp"
#include "solver/registry.hpp"
#include "solver/solver.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace {

using namespace dnncompat;
using solver::Direction;

bool aligned(const void *p) { return reinterpret_cast<std::uintptr_t>(p) % kBufferAlign == 0; }

struct Seen {
    std::vector<const void *> x, w, y, ws;
};

// An invoker that records the pointers of every call and needs `ws` bytes of workspace.
class RecordingInvoker final : public solver::Invoker {
public:
    RecordingInvoker(Seen &seen, std::size_t ws) : seen_(seen) { workspace_ = ws; }

private:
    void run(dnncompatContext &, const solver::Buffers &b, void *ws) const override {
        seen_.x.push_back(b.x);
        seen_.w.push_back(b.w);
        seen_.y.push_back(b.y);
        seen_.ws.push_back(ws);
    }
    Seen &seen_;
};

class RecordingSolver final : public solver::Solver {
public:
    RecordingSolver(const solver::Entry &e, Seen &seen, std::size_t ws) : Solver(e), seen_(seen), ws_(ws) {}
    solver::Applicability applicable(const conv::Problem &, Direction) const override { return {true, ""}; }
    std::size_t workspace(const conv::Problem &, Direction) const override { return ws_; }
    double wti(const conv::Problem &, Direction, const solver::Machine &, solver::Weights) const override {
        return solver::kWtiUnknown;
    }
    solver::InvokerPtr prepare(const conv::Problem &, Direction, float, float, const dnnl::engine &) const override {
        return std::make_shared<RecordingInvoker>(seen_, ws_);
    }
    std::optional<solver::Impl> onednn_impl(const conv::Problem &, Direction) const override { return std::nullopt; }

private:
    Seen &seen_;
    std::size_t ws_;
};

TEST(Measure, RunsTheSolverOnBuffersAtACallersAlignment) {
    solver::Entry row;
    row.id = 1;
    row.name = "test.recording";
    // Odd sizes: a plain allocation of them lands 16 bytes past a page or a cache line.
    for (const char *text : {"n=1,c=3,h=7,w=5,o=5,k=3", "n=2,c=16,h=112,w=112,o=96,k=1"}) {
        for (std::size_t ws : {std::size_t(0), std::size_t(1000), std::size_t(3) << 20}) {
            Seen seen;
            const RecordingSolver s(row, seen, ws);
            solver::MeasureOptions o;
            o.runs = 3;
            const solver::Measurement m = solver::measure(solver::parse_problem(text), Direction::fwd, s, o);
            ASSERT_TRUE(m.ok) << m.error;
            EXPECT_EQ(m.runs, 3);
            ASSERT_EQ(seen.x.size(), 4u) << "one warm-up and three timed calls";
            for (std::size_t i = 0; i < seen.x.size(); ++i) {
                EXPECT_TRUE(aligned(seen.x[i])) << text << " x " << seen.x[i];
                EXPECT_TRUE(aligned(seen.w[i])) << text << " w " << seen.w[i];
                EXPECT_TRUE(aligned(seen.y[i])) << text << " y " << seen.y[i];
                if (ws) EXPECT_TRUE(aligned(seen.ws[i])) << text << " workspace " << seen.ws[i];
                else EXPECT_EQ(seen.ws[i], nullptr);
            }
        }
    }
}

// A problem whose buffers and workspace the machine cannot hold is not measured, and nothing is
// allocated or run: the out-of-memory killer would end the process (dnncompat-select --measure on
// 64 x 256 x 512x512, 32 GiB, on a 24 GiB machine). Half of the machine's memory is the bound.
TEST(Measure, BuffersBeyondHalfTheMachinesMemoryAreNotAllocated) {
    const uint64_t physical = physical_memory_bytes();
    if (physical == 0) GTEST_SKIP() << "this machine's memory cannot be read";
    solver::Entry row;
    row.id = 1;
    row.name = "test.recording";
    const conv::Problem p = solver::parse_problem("n=1,c=3,h=7,w=5,o=5,k=3");
    for (const uint64_t ws : {physical / 2 + (uint64_t{1} << 20), physical * 4}) {
        Seen seen;
        const RecordingSolver s(row, seen, static_cast<std::size_t>(ws));
        const solver::Measurement m = solver::measure(p, Direction::fwd, s, solver::MeasureOptions{});
        EXPECT_FALSE(m.ok);
        EXPECT_NE(m.error.find("exceed half of this machine's memory"), std::string::npos) << m.error;
        EXPECT_TRUE(seen.x.empty()) << "the solver ran";
    }
    // Under the bound it runs as before.
    Seen seen;
    const RecordingSolver s(row, seen, std::size_t(1) << 20);
    EXPECT_TRUE(solver::measure(p, Direction::fwd, s, solver::MeasureOptions{}).ok);
    EXPECT_FALSE(seen.x.empty());
}

} // namespace
