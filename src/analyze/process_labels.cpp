#include "analyze/process_labels.h"

#include <string_view>

#include "common/short_command.h"

namespace canopy::analyze {

std::vector<std::string> short_commands_told_apart(const std::vector<store::ProcessRow>& processes) {
  std::vector<std::string> words;
  std::vector<const std::vector<std::string>*> cmdlines;
  std::vector<std::string_view> names;
  for (const store::ProcessRow& p : processes) {
    words.push_back(short_command(p.cmdline, p.name).value_or(""));
    cmdlines.push_back(&p.cmdline);
    names.push_back(p.name);
  }
  tell_apart(words, cmdlines, names);
  return words;
}

}  // namespace canopy::analyze
