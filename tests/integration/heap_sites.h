// The heap workload's ground truth (tests/workload/heap_workload.cpp), for the tests
// that record it with --heap: its leak sites, the rate they are sampled at, and how
// close an estimate must come.
#pragma once

#include <cstdint>
#include <string>

namespace canopy::testing {

inline const std::string kHeapWorkload = CANOPY_HEAP_WORKLOAD_BIN;
inline const std::string kHeapWorkloadNoFramePointers = CANOPY_HEAP_WORKLOAD_NOFP_BIN;

struct HeapSite {
  const char* function;  // as the symbolizer names it
  int64_t block_bytes;
  int64_t blocks;
};
// As in heap_workload.cpp: A and B in the parent (built with frame pointers), C in the
// child it fork+execs (built without).
constexpr HeapSite kSiteA{"(anonymous namespace)::leak_site_a", 1001, 3700};
constexpr HeapSite kSiteB{"(anonymous namespace)::leak_site_b", 3003, 1550};
constexpr HeapSite kSiteC{"(anonymous namespace)::leak_site_c", 5005, 1140};
constexpr HeapSite kSites[] = {kSiteA, kSiteB, kSiteC};
// `heap_workload teardown`'s one site, freed by a static destructor after main.
constexpr HeapSite kSiteD{"(anonymous namespace)::leak_until_exit", 2002, 2080};
// `heap_workload unrolled`'s one site, allocated by four calls on one line.
constexpr HeapSite kSiteE{"(anonymous namespace)::leak_site_unrolled", 4004, 1312};
// `heap_workload jit`'s one site, allocated through a copy of code in anonymous memory,
// named by the perf map the workload writes.
constexpr HeapSite kSiteJ{"jit_alloc", 3333, 1450};
// The parent's temporary peak: 4096 blocks of 6 KiB, all given back.
constexpr HeapSite kTemporaryPeak{"(anonymous namespace)::temporary_peak", 6144, 4096};

// The rate the tests sample at. A site of n blocks of s bytes has each block sampled
// independently with p = 1 - exp(-s / rate), and its estimate is (s / p) times the
// number sampled, N ~ Binomial(n, p) with mean mu = n p. The sites are sized so that
// mu >= 800 (A: 3700 x 0.217 = 802; B: 1550 x 0.520 = 806; C: 1140 x 0.706 = 805;
// D: 2080 x 0.387 = 804; E: 1312 x 0.624 = 818; J: 1450 x 0.557 = 807; the temporary peak: 4096 x 0.777 =
// 3183). By Chernoff's bounds, the estimate is off by more than 25% with probability at most
// exp(-0.25^2 mu / 2.25) + exp(-0.25^2 mu / 2) < 3e-10 per site, so a failure of a
// test that asks for it is a bug, not bad luck.
// The same holds of the estimated count of blocks, (1 / p) times N.
constexpr int64_t kHeapRateBytes = 4096;
constexpr double kHeapTolerance = 0.25;

}  // namespace canopy::testing
