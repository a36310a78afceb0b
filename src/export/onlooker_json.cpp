#include "export/onlooker_json.h"

#include <algorithm>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
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

// Onlooker has no "unknown": a value canopy could not read counts as 0 there.
Entry entry_at(int64_t t_ms, const ProcessAtTick& at) {
  const store::SampleValues& v = *at.values;
  return {t_ms, v.rss_bytes().value_or(0), v[store::kRssAnonBytes].value_or(0) + v[store::kSwapBytes].value_or(0),
          v[store::kMinorFaults].value_or(0) + v[store::kMajorFaults].value_or(0), at.cpu_percent};
}

// One process's entries, in time order.
struct Instance {
  const store::ProcessRow* process;
  const std::vector<Entry>* entries;
};

class OnlookerWriter {
 public:
  OnlookerWriter(int64_t cpu_count, const std::function<void(std::string_view)>& out)
      : cpu_count_(std::max<int64_t>(1, cpu_count)), out_(out) {}

  void begin() { out_("["); }
  void end() { out_(wrote_any_ ? "\n]\n" : "]\n"); }

  // One element: the instances of one (pid, ppid, name), in order of start.
  void element(std::span<const Instance> instances) {
    size_t entries = 0;
    for (const Instance& instance : instances) {
      entries += instance.entries->size();
    }
    if (entries == 0) {
      return;  // never alive at a tick: Onlooker writes only processes it sampled
    }
    const store::ProcessRow& p = *instances.front().process;
    text_.clear();
    text_ += wrote_any_ ? ",\n{" : "\n{";
    wrote_any_ = true;
    text_ += "\"pid\":" + std::to_string(p.pid) + ",\"ppid\":" + std::to_string(p.ppid) +
             ",\"name\":" + json_string(p.name) + ",\"data\":[";
    first_entry_ = true;
    for (size_t i = 0; i < instances.size(); ++i) {
      // A PID has one process at a time: an instance's entries end where the next
      // one's begin (the ticks count a process whose end was never seen as alive to
      // the recording's end).
      std::optional<int64_t> next_start;
      for (size_t j = i + 1; j < instances.size() && !next_start; ++j) {
        if (!instances[j].entries->empty()) {
          next_start = instances[j].entries->front().t_ms;
        }
      }
      write_instance(*instances[i].process, *instances[i].entries, next_start);
    }
    text_ += "]}";
    out_(text_);
  }

 private:
  void write_instance(const store::ProcessRow& p, const std::vector<Entry>& entries, std::optional<int64_t> until_ms) {
    size_t count = entries.size();
    while (count > 0 && until_ms && entries[count - 1].t_ms >= *until_ms) {
      --count;
    }
    int64_t peak_working_set = 0;  // each instance's own, as Windows counts them
    int64_t peak_private = 0;
    for (size_t k = 0; k < count; ++k) {
      const Entry& e = entries[k];
      peak_working_set = std::max(peak_working_set, e.working_set_bytes);
      peak_private = std::max(peak_private, e.private_bytes);
      if (k + 1 == count) {
        // The last entry knows what the ticks could miss: the highest sample (taken
        // between ticks, at its exit) and the kernel's high-water mark (VmHWM).
        peak_working_set = std::max({peak_working_set, p.peak_rss_bytes.value_or(0), p.hwm_bytes.value_or(0)});
      }
      // Field order as Onlooker writes them (PROCESS_MEMORY_COUNTERS_EX). Linux has
      // no per-process paged/non-paged pool quotas: those are 0.
      text_ += first_entry_ ? "\n" : ",\n";
      first_entry_ = false;
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
  }

  int64_t cpu_count_;
  const std::function<void(std::string_view)>& out_;
  std::string text_;
  bool wrote_any_ = false;
  bool first_entry_ = true;
};

// Onlooker and Cutelooker key a process by (pid, ppid, name). Cutelooker's loader
// keeps one series per key, and an element with the key of an earlier one resizes
// and overwrites it: a second instance of a reused PID would wipe the first from its
// chart. So, as Onlooker itself writes them, the instances of one key go out as one
// element, their entries in time order, the ticks between them empty (Cutelooker
// draws 0 there). canopy's import splits such an element again
// (import/onlooker_tree.h). Each element is a list of indices into `processes`, in
// order of discovery; the elements are in the order of their first instance.
std::vector<std::vector<size_t>> elements_by_key(const std::vector<store::ProcessRow>& processes) {
  std::map<std::tuple<int64_t, int64_t, std::string_view>, size_t> element_of;
  std::vector<std::vector<size_t>> elements;
  for (size_t i = 0; i < processes.size(); ++i) {
    const store::ProcessRow& p = processes[i];
    auto [it, added] = element_of.try_emplace({p.pid, p.ppid, p.name}, elements.size());
    if (added) {
      elements.emplace_back();
    }
    elements[it->second].push_back(i);
  }
  return elements;
}

}  // namespace

Status write_onlooker_json(const store::Reader& reader, const std::function<void(std::string_view)>& out,
                           size_t batch_entries) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  constexpr store::SampleColumn kColumns[] = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes,
                                              store::kSwapBytes,    store::kMinorFaults,  store::kMajorFaults};
  OnlookerWriter writer(reader.meta().cpu_count.value_or(1), out);
  writer.begin();
  const std::vector<store::ProcessRow>& all = processes;
  std::vector<std::vector<size_t>> elements = elements_by_key(all);
  auto entries_of = [&](const std::vector<size_t>& element) {
    size_t entries = 0;
    for (size_t i : element) {
      entries += ticks_alive(all[i], ticks);
    }
    return entries;
  };
  size_t begin = 0;
  while (begin < elements.size()) {
    // The next batch: consecutive elements (in order of discovery, which is about the
    // order of their start, as Onlooker sorts them) up to the budget, at least one.
    size_t end = begin;
    size_t entries = 0;
    while (end < elements.size() && (end == begin || entries + entries_of(elements[end]) <= batch_entries)) {
      entries += entries_of(elements[end]);
      ++end;
    }
    std::vector<store::ProcessRow> batch;  // the batch's processes, element by element
    for (size_t e = begin; e < end; ++e) {
      for (size_t i : elements[e]) {
        batch.push_back(all[i]);
      }
    }
    std::vector<std::vector<Entry>> data(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      data[i].reserve(ticks_alive(batch[i], ticks));
    }
    auto status = for_each_tick(
        reader, batch, ticks,
        [&](const TickFrame& frame) {
          for (const ProcessAtTick& at : frame.processes) {
            data[static_cast<size_t>(at.process - batch.data())].push_back(entry_at(frame.t_ms, at));
          }
        },
        kColumns);
    if (!status) {
      return status;
    }
    size_t next = 0;
    for (size_t e = begin; e < end; ++e) {
      std::vector<Instance> instances;
      for (size_t k = 0; k < elements[e].size(); ++k, ++next) {
        instances.push_back({&batch[next], &data[next]});
      }
      writer.element(instances);
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
