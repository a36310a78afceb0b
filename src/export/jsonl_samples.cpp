#include "export/jsonl_samples.h"

#include <chrono>
#include <cstdio>
#include <vector>

#include "export/json_text.h"

namespace canopy::exporters {

std::string iso8601_utc(int64_t t_ms) {
  using namespace std::chrono;
  sys_time<milliseconds> t{milliseconds{t_ms}};
  sys_days day = floor<days>(t);
  year_month_day date{day};
  hh_mm_ss time{t - day};
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()), static_cast<int>(time.subseconds().count()));
  return text;
}

Status write_jsonl_samples(const store::Reader& reader, const std::function<void(std::string_view)>& out) {
  ASSIGN_OR_RETURN(auto processes, reader.processes());
  // What every line of a process repeats, made once: ,"process_id":1,"pid":..,"name":"..".
  std::vector<std::string> identity;
  for (const store::ProcessRow& p : processes) {
    if (p.id >= 0) {
      if (static_cast<size_t>(p.id) >= identity.size()) {
        identity.resize(static_cast<size_t>(p.id) + 1);
      }
      identity[static_cast<size_t>(p.id)] = ",\"process_id\":" + std::to_string(p.id) +
                                            ",\"pid\":" + std::to_string(p.pid) + ",\"ppid\":" +
                                            std::to_string(p.ppid) + ",\"name\":" + json_string(p.name);
    }
  }
  std::string line;
  auto value_text = [](std::optional<int64_t> value) { return value ? std::to_string(*value) : std::string("null"); };
  return reader.for_each_sample([&](int64_t t_ms, int64_t process_id, const store::SampleValues& values) {
    if (process_id < 0 || static_cast<size_t>(process_id) >= identity.size() ||
        identity[static_cast<size_t>(process_id)].empty()) {
      return;  // a row without its process: the file was damaged; nothing to name it by
    }
    line = "{\"t_ms\":" + std::to_string(t_ms) + ",\"time\":\"" + iso8601_utc(t_ms) + "\"" +
           identity[static_cast<size_t>(process_id)];
    line += ",\"rss_bytes\":" + value_text(values.rss_bytes());
    for (int c = 0; c < store::kSampleColumnCount; ++c) {
      line += ",\"";
      line += store::kSampleColumnNames[c];
      line += "\":" + value_text(values.v[c]);
    }
    line += "}\n";
    out(line);
  });
}

}  // namespace canopy::exporters
