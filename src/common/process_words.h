// common/: the words that name a process in a line of text: its name, then what tells
// it from others of that name (short_command.h, or its arguments), and a command line
// as a shell would take it back. The summary, the budgets, `canopy diff` and the
// recorder's own limit events (an OOM kill) name processes this way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace canopy {

// A command line as a shell would take it back, on one line and terminal_safe: a word
// with anything but letters, digits and _@%+=:,./- in single quotes, or, when it holds
// what terminal_safe escapes (a newline, a byte that is not UTF-8), in $'...' with
// those escaped (as bash's printf %q does).
std::string shell_join(const std::vector<std::string>& args);

// What the text reports show after a process's name to tell it from others of that
// name: the short command of a program whose telling argument canopy knows (a
// compiler's source file, a script: common/short_command.h), else all its arguments,
// which a report line has room for ("hold 200 600", where the viewer's band shows
// "hold"), absolute paths by their last two parts, cut to about as long. Not
// terminal_safe; "" when it has no argument.
std::string process_words(const std::vector<std::string>& cmdline, std::string_view name);
// The name, then its process_words when it has some: "cc1 f5.c". Not terminal_safe.
std::string process_title(const std::string& name, const std::vector<std::string>& cmdline);

}  // namespace canopy
