#include "export/csv.h"

#include <vector>

#include "common/utf8.h"
#include "export/json_text.h"
#include "export/tick_frames.h"

namespace canopy::exporters {
namespace {

constexpr std::string_view kLineEnd = "\r\n";  // RFC 4180

std::optional<store::SampleColumn> column_named(std::string_view name) {
  for (int c = 0; c < store::kSampleColumnCount; ++c) {
    if (name == store::kSampleColumnNames[c]) {
      return static_cast<store::SampleColumn>(c);
    }
  }
  return std::nullopt;
}

// A process's name as UTF-8 (names from /proc can hold any bytes).
std::string name_text(const store::ProcessRow& p) {
  std::string scratch;
  return std::string(sanitized_utf8(p.name, scratch));
}

void append_known(std::string& line, std::optional<int64_t> value) {
  line += ',';
  if (value) {
    line += std::to_string(*value);
  }
}

}  // namespace

std::string csv_field(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    return std::string(field);
  }
  std::string quoted = "\"";
  for (char c : field) {
    quoted += c;
    if (c == '"') {
      quoted += '"';
    }
  }
  quoted += '"';
  return quoted;
}

bool is_wide_csv_metric(std::string_view metric) {
  return metric == "rss_bytes" || metric == "cpu_percent" || column_named(metric).has_value();
}

Status write_csv_wide(const store::Reader& reader, std::string_view metric,
                      const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  ASSIGN_OR_RETURN(auto ticks, reader.ticks());
  // Columns only for processes alive at some tick: the others would stay empty.
  std::vector<store::ProcessRow> shown;
  for (const store::ProcessRow& p : processes) {
    if (ticks_alive(p, ticks) > 0) {
      shown.push_back(p);
    }
  }
  std::string line = "t_ms";
  for (const store::ProcessRow& p : shown) {
    line += ',';
    line += csv_field(name_text(p) + " (pid: " + std::to_string(p.pid) + ", ppid: " + std::to_string(p.ppid) + ")");
  }
  line += kLineEnd;
  out(line);

  std::optional<store::SampleColumn> column = column_named(metric);
  std::vector<store::SampleColumn> read;
  if (column) {
    read.push_back(*column);
  } else if (metric == "rss_bytes") {
    read = {store::kRssAnonBytes, store::kRssFileBytes, store::kRssShmemBytes};
  }  // cpu_percent: the walker reads the CPU columns itself
  std::vector<std::string> cells(shown.size());
  auto status = for_each_tick(
      reader, shown, ticks,
      [&](const TickFrame& frame) {
        for (std::string& cell : cells) {
          cell.clear();
        }
        for (const ProcessAtTick& at : frame.processes) {
          std::string& cell = cells[static_cast<size_t>(at.process - shown.data())];
          if (column) {
            std::optional<int64_t> value = (*at.values)[*column];
            cell = value ? std::to_string(*value) : "";
          } else if (metric == "cpu_percent") {
            cell = json_decimal(at.cpu_percent, 1);
          } else {
            cell = std::to_string(at.values->rss_bytes().value_or(0));
          }
        }
        line = std::to_string(frame.t_ms);
        for (const std::string& cell : cells) {
          line += ',';
          line += cell;
        }
        line += kLineEnd;
        out(line);
      },
      read);
  return status;
}

Status write_csv_long(const store::Reader& reader, const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  std::vector<const store::ProcessRow*> by_id;
  std::vector<std::string> names;  // quoted once, written on every row
  for (const store::ProcessRow& p : processes) {
    if (p.id >= 0) {
      if (static_cast<size_t>(p.id) >= by_id.size()) {
        by_id.resize(static_cast<size_t>(p.id) + 1, nullptr);
        names.resize(by_id.size());
      }
      by_id[static_cast<size_t>(p.id)] = &p;
      names[static_cast<size_t>(p.id)] = csv_field(name_text(p));
    }
  }
  std::string line = "t_ms,process_id,pid,ppid,name,rss_bytes";
  for (const char* name : store::kSampleColumnNames) {
    line += ',';
    line += name;
  }
  line += kLineEnd;
  out(line);
  return reader.for_each_sample([&](int64_t t_ms, int64_t process_id, const store::SampleValues& values) {
    if (process_id < 0 || static_cast<size_t>(process_id) >= by_id.size() || !by_id[process_id]) {
      return;  // a row without its process: the file was damaged; nothing to name it by
    }
    const store::ProcessRow& p = *by_id[static_cast<size_t>(process_id)];
    line = std::to_string(t_ms) + "," + std::to_string(p.id) + "," + std::to_string(p.pid) + "," +
           std::to_string(p.ppid) + "," + names[static_cast<size_t>(process_id)];
    append_known(line, values.rss_bytes());
    for (std::optional<int64_t> value : values.v) {
      append_known(line, value);
    }
    line += kLineEnd;
    out(line);
  });
}

}  // namespace canopy::exporters
