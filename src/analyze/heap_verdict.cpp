#include "analyze/heap_verdict.h"

#include <algorithm>

namespace canopy::analyze {
namespace {

HeapVerdict judge_at(const HeapImageHistory& history, int64_t stack_id, size_t at) {
  HeapVerdict verdict;
  verdict.held_bytes = history.totals_at(stack_id, at).in_use_bytes();
  auto found = history.stacks.find(stack_id);
  if (found == history.stacks.end() || at >= history.snapshots.size()) {
    return verdict;
  }
  // Its rises and high-water mark up to `at`, and the first snapshot where it held half
  // of what it holds at `at`.
  int64_t previous = 0;
  std::optional<size_t> first_change;
  std::optional<size_t> half_index;
  size_t last_rise = 0;
  for (const HeapStackChange& change : found->second) {
    if (change.snapshot > at) {
      break;
    }
    int64_t held = change.totals.in_use_bytes();
    if (!first_change) {
      first_change = change.snapshot;
    }
    if (held > previous) {
      ++verdict.rises;
      last_rise = change.snapshot;
    }
    verdict.peak_bytes = std::max(verdict.peak_bytes, held);
    if (!half_index && verdict.held_bytes > 0 && 2 * held >= verdict.held_bytes) {
      half_index = change.snapshot;
    }
    previous = held;
  }
  const int64_t at_ms = history.snapshots[at]->t_ms;
  verdict.last_rise_t_ms = history.snapshots[last_rise]->t_ms;
  if (half_index) {
    verdict.half_t_ms = history.snapshots[*half_index]->t_ms;
  }
  if (auto sampled = history.allocations.find(stack_id); sampled != history.allocations.end()) {
    for (const store::HeapAllocationRow* allocation : sampled->second) {
      bool alive_now = alive_at(*allocation, at_ms);
      verdict.held_sampled += alive_now ? 1 : 0;
      if (alive_now && (verdict.oldest_born_ms == 0 || allocation->born_ms < verdict.oldest_born_ms)) {
        verdict.oldest_born_ms = allocation->born_ms;
      }
      if (half_index && alive_at(*allocation, verdict.half_t_ms)) {
        ++verdict.half_sampled;
        verdict.half_kept += alive_now ? 1 : 0;
      }
    }
  }

  using Kind = HeapVerdict::Kind;
  using Reason = HeapVerdict::Reason;
  auto decide = [&](Kind kind, Reason reason) {
    verdict.kind = kind;
    verdict.reason = reason;
    return verdict;
  };
  if (verdict.peak_bytes > 0 && verdict.held_bytes < kGaveBackShare * static_cast<double>(verdict.peak_bytes)) {
    return decide(Kind::kBounded, Reason::kGaveBack);
  }
  if (verdict.half_sampled < kVerdictMinSampled) {
    return decide(Kind::kUnclear, Reason::kTooFewSamples);
  }
  double kept = static_cast<double>(verdict.half_kept) / static_cast<double>(verdict.half_sampled);
  if (kept < kRecycledShare) {
    return decide(Kind::kBounded, Reason::kRecycled);
  }
  if (verdict.rises >= kLeakMinRises && kept >= kLeakKeptShare) {
    return decide(Kind::kLeak, Reason::kGrewAndKept);
  }
  // Watched holding flat after its one rise.
  if (verdict.rises <= 1 && at >= last_rise + kPlateauSnapshots) {
    return decide(Kind::kBounded, Reason::kGrewOnce);
  }
  if (verdict.rises <= 1 || (first_change && at < *first_change + kLeakMinRises)) {
    return decide(Kind::kUnclear, Reason::kTooFewSnapshots);
  }
  return decide(Kind::kUnclear, Reason::kGrewAtFew);
}

// The snapshot where the fall of the image's heap that ends in its exit snapshot began:
// its teardown, which an interval snapshot may have caught half done. `exit` itself
// when it did not fall into it.
size_t teardown_start(const HeapImageHistory& history, size_t exit) {
  size_t start = exit;
  while (start > 0) {
    int64_t before = history.snapshots[start - 1]->in_use_bytes;
    int64_t after = history.snapshots[start]->in_use_bytes;
    // Strictly falling: a heap that held flat was idle, not tearing down. The exit
    // snapshot may equal the one before it, taken when the teardown was done.
    if (before < after || (before == after && start != exit)) {
      break;
    }
    // A teardown frees and hardly allocates. A program still at work that lets a phase's
    // memory go allocates as it frees, and its heap drifts down by a sliver of its
    // churn: that is memory given back as it ran. The interval that ends in the exit
    // always counts, for a program may work until its last moment.
    const int64_t allocated = history.allocated_bytes[start] - history.allocated_bytes[start - 1];
    if (start != exit && static_cast<double>(before - after) < kTeardownFallShare * static_cast<double>(allocated)) {
      break;
    }
    --start;
  }
  return start;
}

}  // namespace

HeapVerdict judge_heap_stack(const HeapImageHistory& history, int64_t stack_id, size_t at) {
  HeapVerdict verdict = judge_at(history, stack_id, at);
  if (verdict.reason != HeapVerdict::Reason::kGaveBack || at >= history.snapshots.size() ||
      history.snapshots[at]->reason != "exit") {
    return verdict;
  }
  size_t start = teardown_start(history, at);
  if (start == at) {
    return verdict;
  }
  HeapVerdict before = judge_at(history, stack_id, start);
  if (before.reason == HeapVerdict::Reason::kGaveBack || before.held_bytes <= 0) {
    return verdict;  // it gave back as it ran, or held nothing as the teardown began
  }
  before.freed_at_exit = true;
  return before;
}

const char* verdict_kind_name(HeapVerdict::Kind kind) {
  switch (kind) {
    case HeapVerdict::Kind::kLeak:
      return "leak";
    case HeapVerdict::Kind::kBounded:
      return "bounded";
    case HeapVerdict::Kind::kUnclear:
      return "unclear";
  }
  return "";
}

const char* verdict_reason_name(HeapVerdict::Reason reason) {
  switch (reason) {
    case HeapVerdict::Reason::kGrewAndKept:
      return "grew-and-kept";
    case HeapVerdict::Reason::kGaveBack:
      return "gave-back";
    case HeapVerdict::Reason::kRecycled:
      return "recycled";
    case HeapVerdict::Reason::kGrewOnce:
      return "grew-once";
    case HeapVerdict::Reason::kTooFewSamples:
      return "too-few-samples";
    case HeapVerdict::Reason::kTooFewSnapshots:
      return "too-few-snapshots";
    case HeapVerdict::Reason::kGrewAtFew:
      return "grew-at-few";
  }
  return "";
}

}  // namespace canopy::analyze
