#include "export/onlooker_json.h"

#include <algorithm>
#include <vector>

#include "export/json_text.h"
#include "export/tick_frames.h"

namespace canopy::exporters {
namespace {

// The document is grouped by process, the recording by time. Holding every process's
// entries would cost memory in proportion to the recording, so processes go in
// batches of at most this many entries (40 bytes each), one pass over the samples per
// batch; most recordings are one batch.
constexpr size_t kBatchEntries = size_t{1} << 21;

struct Entry {
  int64_t t_ms;
  int64_t working_set_bytes;  // resident: anon + file + shmem
  int64_t private_bytes;      // anon + swap
  int64_t page_faults;        // minor + major, cumulative
  double cpu_percent;         // of one CPU
};

int64_t known(int64_t value) { return value < 0 ? 0 : value; }

Entry entry_at(int64_t t_ms, const ProcessAtTick& at) {
  const store::SampleValues& v = *at.values;
  return {t_ms, v.rss_bytes(), known(v[store::kRssAnonBytes]) + known(v[store::kSwapBytes]),
          known(v[store::kMinorFaults]) + known(v[store::kMajorFaults]), at.cpu_percent};
}

class OnlookerWriter {
 public:
  OnlookerWriter(int64_t cpu_count, const std::function<void(std::string_view)>& out)
      : cpu_count_(std::max<int64_t>(1, cpu_count)), out_(out) {}

  void begin() { out_("["); }
  void end() { out_(wrote_any_ ? "\n]\n" : "]\n"); }

  void process(const store::ProcessRow& p, const std::vector<Entry>& entries) {
    if (entries.empty()) {
      return;  // never alive at a tick: Onlooker writes only processes it sampled
    }
    text_.clear();
    text_ += wrote_any_ ? ",\n{" : "\n{";
    wrote_any_ = true;
    text_ += "\"pid\":" + std::to_string(p.pid) + ",\"ppid\":" + std::to_string(p.ppid) +
             ",\"name\":" + json_string(p.name) + ",\"data\":[";
    int64_t peak_working_set = 0;
    int64_t peak_private = 0;
    for (size_t k = 0; k < entries.size(); ++k) {
      const Entry& e = entries[k];
      peak_working_set = std::max(peak_working_set, e.working_set_bytes);
      peak_private = std::max(peak_private, e.private_bytes);
      if (k + 1 == entries.size()) {
        // The last entry knows what the ticks could miss: the highest sample (taken
        // between ticks, at its exit) and the kernel's high-water mark (VmHWM).
        peak_working_set = std::max({peak_working_set, p.peak_rss_bytes.value_or(0), p.hwm_bytes.value_or(0)});
      }
      // Field order as Onlooker writes them (PROCESS_MEMORY_COUNTERS_EX). Linux has
      // no per-process paged/non-paged pool quotas: those are 0.
      text_ += k == 0 ? "\n" : ",\n";
      text_ += "{\"time\":" + std::to_string(e.t_ms) +
               ",\"cpuUsage\":" + json_decimal(e.cpu_percent / static_cast<double>(cpu_count_), 3) +
               ",\"memory\":{\"pageFaultCount\":" + std::to_string(e.page_faults) +
               ",\"peakWorkingSetSize\":" + std::to_string(peak_working_set) +
               ",\"workingSetSize\":" + std::to_string(e.working_set_bytes) +
               ",\"quotaPeakPagedPoolUsage\":0,\"quotaPagedPoolUsage\":0,\"quotaPeakNonPagedPoolUsage\":0,"
               "\"quotaNonPagedPoolUsage\":0,\"pagefileUsage\":" +
               std::to_string(e.private_bytes) + ",\"peakPagefileUsage\":" + std::to_string(peak_private) +
               ",\"privateUsage\":" + std::to_string(e.private_bytes) + "}}";
      if (text_.size() > (1 << 16)) {
        out_(text_);
        text_.clear();
      }
    }
    text_ += "]}";
    out_(text_);
  }

 private:
  int64_t cpu_count_;
  const std::function<void(std::string_view)>& out_;
  std::string text_;
  bool wrote_any_ = false;
};

}  // namespace

Status write_onlooker_json(const store::Reader& reader, const std::function<void(std::string_view)>& out,
                           size_t batch_entries) {
  auto processes = reader.processes();
  if (!processes) {
    return processes.error();
  }
  auto ticks = reader.ticks();
  if (!ticks) {
    return ticks.error();
  }
  constexpr store::SampleColumn kColumns[] = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                              store::kSwapBytes,    store::kMinorFaults,  store::kMajorFaults};
  OnlookerWriter writer(reader.meta_int("cpu_count").value_or(1), out);
  writer.begin();
  const std::vector<store::ProcessRow>& all = *processes;
  size_t begin = 0;
  while (begin < all.size()) {
    // The next batch: consecutive processes (in order of discovery, which is about
    // the order of their start, as Onlooker sorts them) up to the budget, at least one.
    size_t end = begin;
    size_t entries = 0;
    while (end < all.size() && (end == begin || entries + ticks_alive(all[end], *ticks) <= batch_entries)) {
      entries += ticks_alive(all[end], *ticks);
      ++end;
    }
    std::span<const store::ProcessRow> batch(all.data() + begin, end - begin);
    std::vector<std::vector<Entry>> data(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      data[i].reserve(ticks_alive(batch[i], *ticks));
    }
    auto status = for_each_tick(
        reader, batch, *ticks,
        [&](const TickFrame& frame) {
          for (const ProcessAtTick& at : frame.processes) {
            data[static_cast<size_t>(at.process - batch.data())].push_back(entry_at(frame.t_ms, at));
          }
        },
        kColumns);
    if (!status) {
      return status;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      writer.process(batch[i], data[i]);
    }
    begin = end;
  }
  writer.end();
  return Ok{};
}

Status write_onlooker_json(const store::Reader& reader, const std::function<void(std::string_view)>& out) {
  return write_onlooker_json(reader, out, kBatchEntries);
}

}  // namespace canopy::exporters
