// Bulk mode: runs a KernelCraft simulation harness (plena_top, coral_sim, aie_sim) from
// C++, with no cocotb, VPI or Python in the simulator process. Every such harness has the
// same host port: `job` (number), `go` (pulse: load job<N>/ from the directory given by a
// +<accel>_dir= plusarg, run it, write its results there), `halt` (stop the core before
// its next instruction) and `finished` (rises when the results are written). This driver
// speaks that protocol exactly as the cocotb job runner (simulators/rtl/cocotb_jobs.py)
// does, so both produce the same files.
//
//   sim --jobs N [--wall S0,S1,...] +<accel>_dir=DIR [other plusargs]
//
// --wall: per-job wall-clock limits in seconds (0 or missing: none); past its limit a
// job gets `halt`, and the core stops with its wall-clock error. Prints one line per job
// ("job N: <sim time> ps, <wall> s") on stdout; exit status 0 when every job finished.
//
// A harness that generates its clock itself (`always #1`) runs on Verilator's timing
// scheduler. One with a `clk_in` port (plena_top) is given the clock from here instead:
// the driver adds the plusarg +bulk_clk_in, which tells the harness to take it, and
// toggles `clk_in` every half period (1 ns), the edges the harness's own clock would
// make at the same times; each edge is then one evaluation of the model, with no
// delay to schedule or clock process to resume.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "Vtop.h"
#include "verilated.h"

namespace {

using Clock = std::chrono::steady_clock;

// Wall-clock checks cost a system call: one per this many time slots.
constexpr unsigned kWallEvery = 1u << 14;

// Does the model have a `clk_in` port (the clock given from here)?
template <typename T, typename = void>
struct HasClockIn : std::false_type {};
template <typename T>
struct HasClockIn<T, std::void_t<decltype(std::declval<T&>().clk_in)>> : std::true_type {};
constexpr bool kClockIn = HasClockIn<Vtop>::value;

template <typename T>
void toggle_clock(T& top) {
    if constexpr (HasClockIn<T>::value) top.clk_in = !top.clk_in;
}

struct Sim {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vtop> top;
    uint64_t period;  // one harness clock period (2 ns) in the context's time units

    // Evaluates time slots until `until` (a simulation time) is reached or, with
    // `finish`, until `finished` rises; false when the simulation ended on its own.
    bool advance(uint64_t until, bool finish, double wall_limit) {
        const auto t0 = Clock::now();
        unsigned slots = 0;
        bool was = top->finished;
        for (;;) {
            top->eval();
            if (ctx->gotFinish()) return false;
            if (finish && top->finished && !was) return true;
            was = top->finished;
            uint64_t next;
            if constexpr (kClockIn) {
                next = ctx->time() + period / 2;   // the clock's next edge
            } else {
                if (!top->eventsPending()) return false;
                next = top->nextTimeSlot();
            }
            if (!finish && next > until) {
                ctx->time(until);
                return true;
            }
            ctx->time(next);
            if constexpr (kClockIn) toggle_clock(*top);
            if (finish && wall_limit > 0 && !top->halt && ++slots % kWallEvery == 0 &&
                std::chrono::duration<double>(Clock::now() - t0).count() > wall_limit)
                top->halt = 1;
        }
    }
};

std::vector<double> parse_walls(const char* text) {
    std::vector<double> out;
    for (const char* p = text; *p;) {
        char* end = nullptr;
        out.push_back(std::strtod(p, &end));
        if (end == p) {
            std::fprintf(stderr, "bulk driver: bad --wall list %s\n", text);
            std::exit(2);
        }
        p = *end == ',' ? end + 1 : end;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    long jobs = -1;
    std::vector<double> walls;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) jobs = std::atol(argv[++i]);
        else if (!std::strcmp(argv[i], "--wall") && i + 1 < argc) walls = parse_walls(argv[++i]);
    }
    if (jobs < 0) {
        std::fprintf(stderr, "usage: %s --jobs N [--wall S0,S1,...] +<accel>_dir=DIR\n", argv[0]);
        return 2;
    }
    Sim sim;
    sim.ctx = std::make_unique<VerilatedContext>();
    std::vector<const char*> args(argv, argv + argc);
    if (kClockIn) args.push_back("+bulk_clk_in");
    sim.ctx->commandArgs(static_cast<int>(args.size()), args.data());  // the harness reads its +plusargs
    sim.top = std::make_unique<Vtop>(sim.ctx.get(), "");
    // 2 ns in time-precision units (10^timeprecision s each; -12 under 1ns/1ps).
    sim.period = static_cast<uint64_t>(std::llround(2e-9 / std::pow(10.0, sim.ctx->timeprecision())));
    Vtop& top = *sim.top;
    top.go = 0;
    top.halt = 0;
    top.job = 0;
    if (!sim.advance(sim.ctx->time() + sim.period, false, 0)) goto ended;
    for (long n = 0; n < jobs; ++n) {
        const auto t0 = Clock::now();
        top.job = static_cast<uint32_t>(n);
        top.halt = 0;
        top.go = 1;
        if (!sim.advance(sim.ctx->time() + sim.period, false, 0)) goto ended;
        top.go = 0;
        const double wall = n < static_cast<long>(walls.size()) ? walls[n] : 0.0;
        if (!sim.advance(0, true, wall)) goto ended;
        std::printf("job %ld: %llu ps, %.6f s\n", n,
                    static_cast<unsigned long long>(sim.ctx->time()),
                    std::chrono::duration<double>(Clock::now() - t0).count());
    }
    std::fflush(stdout);
    top.final();
    return 0;
ended:
    // $fatal (a harness error) or an idle simulator before every job finished.
    std::fprintf(stderr, "bulk driver: the simulation ended before job results were written\n");
    top.final();
    return 1;
}
