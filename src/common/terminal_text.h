// What canopy prints on a terminal. Text from a recording or from the command line
// (process names, executables, command lines, paths) can hold escape sequences, which a
// terminal would obey (clear the screen, set its title), newlines, which would break a
// table's rows or a one-line error, and bytes that are not UTF-8. They are shown as C
// escapes instead: every byte stays visible, and a line stays one line.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace canopy {

// `text` with ESC, BEL, newline, carriage return and tab as \e, \a, \n, \r, \t; every
// other C0 control, DEL, C1 control (U+0080 to U+009F, which some terminals obey as
// ESC sequences) and byte that is not UTF-8 as \xNN. Other UTF-8 is kept as it is.
std::string terminal_safe(std::string_view text);

// "canopy: MESSAGE\n" on `stream`, MESSAGE made terminal_safe: how canopy prints every
// line of its own, errors above all, since they quote what the user gave.
void print_line(std::FILE* stream, std::string_view message);
inline void print_error(std::string_view message) { print_line(stderr, message); }

}  // namespace canopy
