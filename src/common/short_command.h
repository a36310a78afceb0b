// A few words that tell one process of a name from another, from its recorded command
// line: what the summary, `canopy diff`, `canopy heap` and the viewer show beside the
// name ("cc1plus 10913 src/json.cpp" where the name alone is one of a hundred cc1plus).
//   compilers and assemblers  the input source file (cc1plus's source argument, the
//                             file gcc/clang compile), not the -o output or -dumpbase;
//                             the -o output of a link, or of `as` fed a temporary file
//   linkers                   the -o output
//   interpreters              the script, "-m module", or "-c" and the start of the code
//   java                      the -jar file, or the main class
//   anything else             the first argument that is not an option, else the first
// At most kShortCommandChars characters; a path keeps its last two parts.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canopy {

inline constexpr size_t kShortCommandChars = 40;

// `cmdline`: the recorded argv (empty for a process gone before it was read); `name`:
// the process's command name, which tells a compiler or interpreter whose argv[0] is a
// wrapper's. nullopt when there is nothing to add: no argument.
std::optional<std::string> short_command(const std::vector<std::string>& cmdline, std::string_view name);

// Whether `short_command` knows where this program's telling argument is (a compiler's
// source file, an interpreter's script, java's -jar), rather than taking its first
// argument that is no option: argv[0] (a path) and the process's name.
bool is_known_program(std::string_view argv0, std::string_view name);

// What a process that rewrote its command line into one title ("nginx: worker
// process", "postgres: checkpointer", "stress-ng-cpu [run]", as setproctitle does)
// says after its program's name: "worker process". nullopt for any other command line:
// one of several arguments, or one whose first word is not the process's program.
// short_command and process_words show it.
std::optional<std::string> title_words(const std::vector<std::string>& cmdline, std::string_view name);

// A path as its last two parts ("src/json.cpp"), clipped to kShortCommandChars.
std::string short_path(std::string_view path);

// `words` that are a path's last parts (short_command's, process_words') with the part
// before them in the argument they came from: what tells apart processes whose words
// read alike (each target of a CMake unity build compiles a "Unity/unity_0_cxx.cxx").
// nullopt when no argument ends with them, they are its whole path already, or the
// result would be twice kShortCommandChars long.
std::optional<std::string> with_one_more_path_part(const std::vector<std::string>& cmdline, std::string_view words);

// The words of several processes (short_command's, process_words'), those of one name
// that read alike widened in place one more part of their path at a time
// (with_one_more_path_part) until they differ or can grow no more: what the summary's
// peaks, `canopy heap`, the viewer's labels and the trace export's tracks show. `cmdlines[i]` and `names[i]` are words[i]'s
// process's; empty words stay empty.
void tell_apart(std::vector<std::string>& words, const std::vector<const std::vector<std::string>*>& cmdlines,
                const std::vector<std::string_view>& names);

}  // namespace canopy
