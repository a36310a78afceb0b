#include "analyze/process_figures.h"

#include <algorithm>
#include <unordered_map>

namespace canopy::analyze {

bool lacks_figures(const store::ProcessRow& p) { return !p.peak_rss_bytes || !p.cpu_user_ns; }

void take_sample(SampleFigures& figures, int64_t t_ms, const store::SampleValues& v) {
  figures.sampled = true;
  std::optional<int64_t> rss = v.rss_bytes();
  if (rss && (!figures.peak_rss_bytes || *rss > *figures.peak_rss_bytes)) {
    figures.peak_rss_bytes = rss;
    figures.peak_rss_t_ms = t_ms;
  }
  figures.cpu_user_ns = v[store::kCpuUserNs].value_or(0);
  figures.cpu_system_ns = v[store::kCpuSystemNs].value_or(0);
}

void take_sample_figures(store::ProcessRow& p, const SampleFigures& figures) {
  if (!lacks_figures(p) || !figures.sampled) {
    return;
  }
  if (figures.peak_rss_bytes && (!p.peak_rss_bytes || *figures.peak_rss_bytes > *p.peak_rss_bytes)) {
    p.peak_rss_bytes = figures.peak_rss_bytes;
    p.peak_rss_t_ms = figures.peak_rss_t_ms;
  }
  p.cpu_user_ns = figures.cpu_user_ns;
  p.cpu_system_ns = figures.cpu_system_ns;
}

Result<std::vector<store::ProcessRow>> processes_with_figures(const store::Reader& reader) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  std::unordered_map<int64_t, std::pair<store::ProcessRow*, SampleFigures>> missing;
  for (auto& p : processes) {
    if (lacks_figures(p)) {
      missing[p.id] = {&p, SampleFigures{}};
    }
  }
  if (missing.empty()) {
    return processes;
  }
  RETURN_IF_ERROR(reader.for_each_sample([&](int64_t t_ms, int64_t process_id, const store::SampleValues& v) {
    auto it = missing.find(process_id);
    if (it == missing.end()) {
      return;
    }
    take_sample(it->second.second, t_ms, v);
    it->second.first->last_seen_ms = t_ms;
  }));
  for (auto& [id, row_and_figures] : missing) {
    take_sample_figures(*row_and_figures.first, row_and_figures.second);
  }
  return processes;
}

std::vector<std::string> cmdline_of(const std::vector<store::ProcessRow>& processes, int64_t process_id) {
  auto row = std::find_if(processes.begin(), processes.end(),
                          [&](const store::ProcessRow& p) { return p.id == process_id; });
  return row != processes.end() ? row->cmdline : std::vector<std::string>();
}

ProcessPeak process_peak(const store::ProcessRow& p, int64_t start_ms) {
  ProcessPeak peak{p.id, p.pid, p.name, p.peak_rss_bytes.value_or(0), p.peak_rss_t_ms.value_or(start_ms) - start_ms,
                   p.cpu_user_ns.value_or(0) + p.cpu_system_ns.value_or(0)};
  peak.named_from_exit_record = p.named_from_exit_record;
  if (p.hwm_bytes && p.end_ms && *p.hwm_bytes > peak.peak_rss_bytes) {
    peak.peak_rss_bytes = *p.hwm_bytes;
    peak.peak_t_ms = *p.end_ms - start_ms;
    peak.peak_from_exit_record = true;
  }
  return peak;
}

}  // namespace canopy::analyze
