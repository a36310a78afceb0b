#include "common/process_words.h"

#include <algorithm>

#include "common/short_command.h"
#include "common/terminal_text.h"
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

// $'...', for a word terminal_safe would change: bash, zsh, ksh and POSIX.1-2024's sh
// read its escapes (\n, \e, \xNN) back as the bytes, so a newline in `python3 -c` or a
// byte that is not UTF-8 stays in the line as an escape that is also the shell's, where
// single quotes around terminal_safe's escape would read back as a backslash and an n.
std::string ansi_c_quoted(std::string_view word) {
  std::string escaped;
  for (char c : word) {
    if (c == '\\' || c == '\'') {
      escaped += '\\';
    }
    escaped += c;
  }
  return "$'" + terminal_safe(escaped) + "'";
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
    const bool escaped = terminal_safe(arg) != arg;
    text += (text.empty() ? "" : " ") + (is_plain_word(arg) ? arg : escaped ? ansi_c_quoted(arg) : single_quoted(arg));
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
