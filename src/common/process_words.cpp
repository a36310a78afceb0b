#include "common/process_words.h"

#include "common/short_command.h"
#include "common/utf8.h"

namespace canopy {

std::string shell_join(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& arg : args) {
    bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    std::string quoted = "'";
    for (char c : arg) {
      quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);  // ' ends the quote: '\''
    }
    text += (text.empty() ? "" : " ") + (plain ? arg : quoted + "'");
  }
  return text;
}

std::string process_words(const std::vector<std::string>& cmdline, std::string_view name) {
  if (auto words = title_words(cmdline, name)) {
    return *words;
  }
  if (cmdline.empty() || is_known_program(cmdline[0], name)) {
    return short_command(cmdline, name).value_or("");
  }
  // An absolute path by its last two parts, as short_command shows a path: the build
  // directory a test's programs lie in tells nothing of one from another.
  std::vector<std::string> args;
  for (auto arg = cmdline.begin() + 1; arg != cmdline.end(); ++arg) {
    args.push_back(arg->starts_with('/') ? short_path(*arg) : *arg);
  }
  std::string words = shell_join(args);
  if (words.size() > kShortCommandChars) {
    words = std::string(utf8_prefix(words, kShortCommandChars - 3)) + "...";
  }
  return words;
}

std::string process_title(const std::string& name, const std::vector<std::string>& cmdline) {
  std::string words = process_words(cmdline, name);
  return words.empty() ? name : name + " " + words;
}

}  // namespace canopy
