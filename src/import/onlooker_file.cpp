#include "import/onlooker_file.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/utf8.h"
#include "import/json_array_elements.h"
#include "logs/json_lines.h"

namespace canopy::importers {
namespace {

constexpr int64_t kMaxBytes = std::numeric_limits<int64_t>::max();

// Says which value of which process was wrong: "process [3] (pid 3912):
// data[17].memory.workingSetSize should be ...", at the process's position.
class ProcessChecker {
 public:
  ProcessChecker(const std::string& path, const ArrayElement& element) : path_(path), element_(element) {}

  Error fail(const std::string& field, const std::string& reason) const {
    std::string who = "process [" + std::to_string(element_.index) + "]";
    if (pid_) {
      who += " (pid " + std::to_string(*pid_) + ")";
    }
    return error_at(path_, element_.start, who + ": " + (field.empty() ? "" : field + " ") + reason);
  }

  // The value at `key`, or an error naming what is missing.
  Result<simdjson::dom::element> field(simdjson::dom::object object, std::string_view key,
                                       const std::string& where) const {
    simdjson::dom::element value;
    if (object[key].get(value) != simdjson::SUCCESS) {
      return fail(where.empty() ? std::string() : where, "has no \"" + std::string(key) + "\"");
    }
    return value;
  }

  Result<simdjson::dom::object> object(simdjson::dom::element value, const std::string& where) const {
    simdjson::dom::object object;
    if (value.get(object) != simdjson::SUCCESS) {
      return fail(where, "should be an object, found " + logs::json_type_words(value));
    }
    return object;
  }

  // A whole number from 0 to `max`.
  Result<int64_t> whole(simdjson::dom::element value, const std::string& where, int64_t max) const {
    uint64_t number = 0;
    if (value.type() == simdjson::dom::element_type::DOUBLE || value.get(number) != simdjson::SUCCESS ||
        number > static_cast<uint64_t>(max)) {
      std::string found = logs::json_type_words(value);
      if (value.is_number()) {
        found = simdjson::to_string(value);
      }
      return fail(where, "should be a whole number from 0 to " + std::to_string(max) + ", found " + found);
    }
    return static_cast<int64_t>(number);
  }

  void set_pid(int64_t pid) { pid_ = pid; }

 private:
  const std::string& path_;
  const ArrayElement& element_;
  std::optional<int64_t> pid_;
};

Result<OnlookerEntry> read_entry(const ProcessChecker& check, simdjson::dom::element value, const std::string& where) {
  ASSIGN_OR_RETURN(auto object, check.object(value, where));
  OnlookerEntry entry;
  ASSIGN_OR_RETURN(auto time, check.field(object, "time", where));
  ASSIGN_OR_RETURN(auto t_ms, check.whole(time, where + ".time", kMaxBytes));
  entry.t_ms = t_ms;
  ASSIGN_OR_RETURN(auto cpu, check.field(object, "cpuUsage", where));
  double cpu_percent = 0;
  if (cpu.get(cpu_percent) != simdjson::SUCCESS || !(cpu_percent >= 0) || !std::isfinite(cpu_percent)) {
    return check.fail(where + ".cpuUsage",
                      "should be a percentage of at least 0, found " +
                          (cpu.is_number() ? simdjson::to_string(cpu) : logs::json_type_words(cpu)));
  }
  entry.cpu_percent = cpu_percent;
  ASSIGN_OR_RETURN(auto memory_value, check.field(object, "memory", where));
  ASSIGN_OR_RETURN(auto memory, check.object(memory_value, where + ".memory"));
  auto counter = [&](const char* key) -> Result<std::optional<int64_t>> {
    simdjson::dom::element number;
    if (memory[key].get(number) != simdjson::SUCCESS) {
      return std::optional<int64_t>();
    }
    ASSIGN_OR_RETURN(auto bytes, check.whole(number, where + ".memory." + key, kMaxBytes));
    return std::optional<int64_t>(bytes);
  };
  auto required_counter = [&](const char* key) -> Result<int64_t> {
    ASSIGN_OR_RETURN(auto bytes, counter(key));
    if (!bytes) {
      return check.fail(where + ".memory", "has no \"" + std::string(key) + "\"");
    }
    return *bytes;
  };
  ASSIGN_OR_RETURN(entry.working_set_bytes, required_counter("workingSetSize"));
  ASSIGN_OR_RETURN(entry.pagefile_bytes, required_counter("pagefileUsage"));
  ASSIGN_OR_RETURN(entry.peak_working_set_bytes, counter("peakWorkingSetSize"));
  ASSIGN_OR_RETURN(entry.page_faults, counter("pageFaultCount"));
  return entry;
}

Result<OnlookerProcess> read_process(const std::string& path, const ArrayElement& element) {
  ProcessChecker check(path, element);
  ASSIGN_OR_RETURN(auto object, check.object(element.value, ""));
  OnlookerProcess process;
  for (auto [key, target] : {std::pair{"pid", &process.pid}, std::pair{"ppid", &process.ppid}}) {
    ASSIGN_OR_RETURN(auto value, check.field(object, key, ""));
    ASSIGN_OR_RETURN(auto number, check.whole(value, key, kMaxWindowsPid));
    *target = number;
    if (target == &process.pid) {
      check.set_pid(number);
    }
  }
  ASSIGN_OR_RETURN(auto name, check.field(object, "name", ""));
  std::string_view name_text;
  if (name.get(name_text) != simdjson::SUCCESS) {
    return check.fail("name", "should be a string, found " + logs::json_type_words(name));
  }
  append_sanitized_utf8(process.name, name_text);  // "\u0000" would end a C string
  ASSIGN_OR_RETURN(auto data, check.field(object, "data", ""));
  simdjson::dom::array entries;
  if (data.get(entries) != simdjson::SUCCESS) {
    return check.fail("data", "should be an array of samples, found " + logs::json_type_words(data));
  }
  process.entries.reserve(entries.size());
  size_t k = 0;
  for (simdjson::dom::element value : entries) {
    ASSIGN_OR_RETURN(auto entry, read_entry(check, value, "data[" + std::to_string(k++) + "]"));
    process.entries.push_back(entry);
  }
  std::stable_sort(process.entries.begin(), process.entries.end(),
                   [](const OnlookerEntry& a, const OnlookerEntry& b) { return a.t_ms < b.t_ms; });
  auto twice = std::adjacent_find(process.entries.begin(), process.entries.end(),
                                  [](const OnlookerEntry& a, const OnlookerEntry& b) { return a.t_ms == b.t_ms; });
  if (twice != process.entries.end()) {
    return check.fail("data", "has two samples at time " + std::to_string(twice->t_ms));
  }
  return process;
}

}  // namespace

Result<std::vector<OnlookerProcess>> read_onlooker_file(
    const std::string& path, const std::function<void(int64_t bytes_done, int64_t bytes_total)>& progress) {
  std::vector<OnlookerProcess> processes;
  ArrayFile file{path, "an Onlooker array of processes [{\"pid\": ..., \"data\": [...]}, ...]", progress};
  auto status = for_each_array_element(file, [&](const ArrayElement& element) -> Status {
    ASSIGN_OR_RETURN(auto process, read_process(path, element));
    if (!process.entries.empty()) {
      processes.push_back(std::move(process));
    }
    return Ok{};
  });
  if (!status) {
    return status.error();
  }
  return processes;
}

}  // namespace canopy::importers
