#include "common/process_words.h"

#include <algorithm>

#include "common/short_command.h"
#include "common/utf8.h"

namespace canopy {

namespace {

// A word a shell reads back as itself, unquoted: no character it splits at, expands,
// globs or treats as a comment, history or home directory.
bool is_plain_word(std::string_view word) {
  constexpr std::string_view kPlainPunctuation = "_@%+=:,./-";
  return !word.empty() && std::all_of(word.begin(), word.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           kPlainPunctuation.find(c) != std::string_view::npos;
  });
}

bool is_control_byte(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// $'...': bash, zsh, ksh and POSIX.1-2024's sh read each escape back as its byte, so a
// newline in `python3 -c` stays in the line, as an escape, where single quotes would
// hold the newline itself and the line would break.
std::string ansi_c_quoted(std::string_view word) {
  std::string quoted = "$'";
  for (char c : word) {
    switch (c) {
      case '\\': quoted += "\\\\"; break;
      case '\'': quoted += "\\'"; break;
      case '\n': quoted += "\\n"; break;
      case '\t': quoted += "\\t"; break;
      case '\r': quoted += "\\r"; break;
      default:
        if (is_control_byte(c)) {
          constexpr std::string_view kHex = "0123456789abcdef";
          const auto byte = static_cast<unsigned char>(c);
          quoted += {'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]};
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "'";
}

std::string single_quoted(std::string_view word) {
  std::string quoted = "'";
  for (char c : word) {
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);  // ' ends the quote: '\''
  }
  return quoted + "'";
}

}  // namespace

std::string shell_join(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& arg : args) {
    const bool control = std::any_of(arg.begin(), arg.end(), is_control_byte);
    text += (text.empty() ? "" : " ") + (is_plain_word(arg) ? arg : control ? ansi_c_quoted(arg) : single_quoted(arg));
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
