#include "integration/pprof_decoded.h"

#include <filesystem>
#include <regex>
#include <sstream>

#include "integration/harness.h"

namespace canopy::testing {
namespace {

const std::string kProtoc = CANOPY_PROTOC;
const std::string kPprofProtoDir = CANOPY_PPROF_PROTO_DIR;
const std::string kPprof = CANOPY_PPROF_BIN;

// A message of protoc's text format, as it prints one: a field per line, `name: value`
// for a scalar, `name {` ... `}` for a message.
struct TextMessage {
  std::multimap<std::string, std::string> scalars;
  std::vector<std::pair<std::string, TextMessage>> messages;

  std::string scalar(const std::string& name) const {
    auto at = scalars.find(name);
    return at == scalars.end() ? "" : at->second;
  }
  int64_t integer(const std::string& name) const {
    std::string text = scalar(name);
    return text.empty() ? 0 : std::stoll(text);
  }
  uint64_t unsigned_integer(const std::string& name) const {
    std::string text = scalar(name);
    return text.empty() ? 0 : std::stoull(text);
  }
  std::vector<const TextMessage*> all(const std::string& name) const {
    std::vector<const TextMessage*> found;
    for (const auto& [field, message] : messages) {
      if (field == name) {
        found.push_back(&message);
      }
    }
    return found;
  }
};

// "a\"b\303\251" as protoc prints a string: C escapes, octal for other bytes.
std::string unquoted(const std::string& text) {
  std::string out;
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    char c = text[++i];
    if (c >= '0' && c <= '7') {
      int value = 0;
      for (int n = 0; n < 3 && i < text.size() && text[i] >= '0' && text[i] <= '7'; ++n, ++i) {
        value = value * 8 + (text[i] - '0');
      }
      --i;
      out += static_cast<char>(value);
    } else {
      out += c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c;
    }
  }
  return out;
}

TextMessage parse_text(const std::string& text) {
  TextMessage root;
  std::vector<TextMessage*> open = {&root};
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    line.erase(0, line.find_first_not_of(' '));
    if (line.empty()) {
      continue;
    }
    size_t colon = line.find(": ");
    if (colon == std::string::npos && line.size() > 2 && line.ends_with(" {")) {
      auto& added = open.back()->messages.emplace_back(line.substr(0, line.size() - 2), TextMessage{});
      open.push_back(&added.second);
    } else if (line == "}" && open.size() > 1) {
      open.pop_back();
    } else if (colon != std::string::npos) {
      std::string value = line.substr(colon + 2);
      open.back()->scalars.emplace(line.substr(0, colon), value.starts_with('"') ? unquoted(value) : value);
    }
  }
  return root;
}

std::vector<std::string> values_of(const TextMessage& message, const std::string& name) {
  std::vector<std::string> values;
  auto [from, to] = message.scalars.equal_range(name);
  for (auto at = from; at != to; ++at) {
    values.push_back(at->second);
  }
  return values;
}

}  // namespace

int64_t PprofProfile::value(const PprofSample& sample, const std::string& type) const {
  for (size_t i = 0; i < sample_types.size() && i < sample.values.size(); ++i) {
    if (sample_types[i].first == type) {
      return sample.values[i];
    }
  }
  return 0;
}

std::string PprofProfile::leaf_function(const PprofSample& sample) const {
  if (sample.location_ids.empty()) {
    return "";
  }
  auto location = locations.find(sample.location_ids.front());
  return location == locations.end() || location->second.lines.empty() ? "" : location->second.lines.front().function;
}

PprofProfile decode_pprof(const std::string& path, std::string& error) {
  PprofProfile profile;
  if (!std::filesystem::exists(kProtoc) || !std::filesystem::exists(kPprofProtoDir + "/profile.proto")) {
    error = "protoc or pprof's profile.proto not found ('" + kProtoc + "', '" + kPprofProtoDir +
            "'): scripts/deps.sh installs protobuf-compiler and golang-github-google-pprof-dev";
    return profile;
  }
  auto gunzipped = run({"gzip", "-dc", path});
  if (gunzipped.exit_status != 0) {
    error = "gzip -dc " + path + ": " + gunzipped.err;
    return profile;
  }
  std::string raw = path + ".raw";
  write_file(raw, gunzipped.out);
  // protoc reads the message from stdin only.
  auto decoded = run({"sh", "-c", "exec \"$0\" --decode=perftools.profiles.Profile -I \"$1\" profile.proto < \"$2\"",
                      kProtoc, kPprofProtoDir, raw});
  if (decoded.exit_status != 0) {
    error = "protoc --decode=perftools.profiles.Profile: " + decoded.err;
    return profile;
  }
  TextMessage message = parse_text(decoded.out);
  std::vector<std::string> strings = values_of(message, "string_table");
  auto string_at = [&](int64_t index) {
    if (index < 0 || static_cast<size_t>(index) >= strings.size()) {
      error = "string index " + std::to_string(index) + " outside the table of " + std::to_string(strings.size());
      return std::string();
    }
    return strings[static_cast<size_t>(index)];
  };
  for (const TextMessage* type : message.all("sample_type")) {
    profile.sample_types.emplace_back(string_at(type->integer("type")), string_at(type->integer("unit")));
  }
  std::map<uint64_t, std::pair<std::string, std::string>> functions;  // name, file
  for (const TextMessage* function : message.all("function")) {
    functions[function->unsigned_integer("id")] = {string_at(function->integer("name")),
                                                   string_at(function->integer("filename"))};
  }
  for (const TextMessage* location : message.all("location")) {
    PprofLocation& added = profile.locations[location->unsigned_integer("id")];
    added.mapping_id = location->unsigned_integer("mapping_id");
    added.address = location->unsigned_integer("address");
    for (const TextMessage* line : location->all("line")) {
      const auto& [name, file] = functions[line->unsigned_integer("function_id")];
      added.lines.push_back({name, file, line->integer("line")});
    }
  }
  for (const TextMessage* mapping : message.all("mapping")) {
    profile.mappings.push_back({mapping->unsigned_integer("id"), mapping->unsigned_integer("memory_start"),
                                mapping->unsigned_integer("memory_limit"), mapping->unsigned_integer("file_offset"),
                                string_at(mapping->integer("filename")), string_at(mapping->integer("build_id")),
                                mapping->scalar("has_functions") == "true",
                                mapping->scalar("has_inline_frames") == "true"});
  }
  for (const TextMessage* sample : message.all("sample")) {
    PprofSample& added = profile.samples.emplace_back();
    for (const std::string& id : values_of(*sample, "location_id")) {
      added.location_ids.push_back(std::stoull(id));
    }
    for (const std::string& value : values_of(*sample, "value")) {
      added.values.push_back(std::stoll(value));
    }
    for (const TextMessage* label : sample->all("label")) {
      added.labels[string_at(label->integer("key"))] = string_at(label->integer("str"));
    }
  }
  profile.time_nanos = message.integer("time_nanos");
  profile.duration_nanos = message.integer("duration_nanos");
  if (auto period_types = message.all("period_type"); !period_types.empty()) {
    profile.period_type = {string_at(period_types[0]->integer("type")), string_at(period_types[0]->integer("unit"))};
  }
  profile.period = message.integer("period");
  for (const std::string& comment : values_of(message, "comment")) {
    profile.comments.push_back(string_at(std::stoll(comment)));
  }
  profile.default_sample_type = string_at(message.integer("default_sample_type"));
  return profile;
}

std::vector<PprofTopRow> pprof_tool_top(const std::string& path, const std::string& sample_index,
                                        std::string& error) {
  std::vector<PprofTopRow> rows;
  if (kPprof.empty() || !std::filesystem::exists(kPprof)) {
    error = "pprof not built ('" + kPprof + "'): scripts/deps.sh installs golang-go and golang-github-google-pprof-dev";
    return rows;
  }
  // Bytes in bytes (pprof would scale them to kB, MB); counts print as they are.
  bool bytes = sample_index.ends_with("_space");
  std::vector<std::string> argv = {kPprof, "-top", "-nodecount=100000", "-nodefraction=0", "-edgefraction=0",
                                   "-sample_index=" + sample_index};
  if (bytes) {
    argv.push_back("-unit=B");
  }
  argv.push_back(path);
  auto printed = run(argv);
  if (printed.exit_status != 0) {
    error = "pprof -top: " + printed.err;
    return rows;
  }
  // "  3702726B 25.30% 97.28%   3702726B 25.30%  ::leak_site_a"
  std::regex row(R"(^\s*(\d+)B?\s+\S+%\s+\S+%\s+(\d+)B?\s+\S+%\s+(.+)$)");
  std::istringstream lines(printed.out);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, match, row)) {
      rows.push_back({std::stoll(match[1]), std::stoll(match[2]), match[3]});
    }
  }
  if (rows.empty()) {
    error = "pprof -top printed no rows:\n" + printed.out;
  }
  return rows;
}

}  // namespace canopy::testing
