#include "common/short_command.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>
#include <span>
#include <utility>

#include "common/text.h"

namespace canopy {
namespace {

constexpr std::string_view kSourceExtensions[] = {
    "c",  "cc",  "cp",  "cpp", "cxx", "c++", "C",  "m",  "mm",  "M",  "i",     "ii",   "s",  "S",  "sx", "f",  "f90",
    "f95", "f03", "for", "F",  "F90", "go",  "rs", "cu", "d",   "ads", "adb", "swift", "java", "kt", "ll", "bc"};
constexpr std::string_view kCompilers[] = {
    "cc1",   "cc1plus", "cc1obj",  "cc1objplus", "f951",  "gcc",     "g++",    "cc",     "c++",    "clang", "clang++", "clang-cl",
    "as",    "gfortran", "nvcc",   "rustc",      "javac", "kotlinc", "swiftc", "ccache", "distcc", "icc",   "icpx",    "icx"};
constexpr std::string_view kLinkers[] = {"ld",   "ld.bfd",  "ld.gold", "ld.lld", "ld.mold", "ld64.lld",
                                         "lld",  "gold",    "mold",    "collect2"};
// Options of compilers and drivers that take the next argument as their value.
constexpr std::string_view kCompilerValueOptions[] = {
    "-o", "-MF", "-MT", "-MQ", "-MD", "-MMD", "-dumpbase", "-dumpbase-ext", "-dumpdir", "-auxbase", "-auxbase-strip",
    "-include", "-imacros", "-isystem", "-idirafter", "-iprefix", "-iwithprefix", "-iquote", "-isysroot", "-imultiarch",
    "-imultilib", "-I", "-D", "-U", "-L", "-l", "-x", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-target",
    "-arch", "-main-file-name", "-resource-dir", "-fdebug-compilation-dir", "-ferror-limit", "-MJ",
    "--serialize-diagnostics"};
constexpr std::string_view kJavaValueOptions[] = {"-cp",           "-classpath",    "--class-path", "-p",
                                                  "--module-path", "--add-modules", "--add-opens",  "--add-exports"};
constexpr std::string_view kInterpreters[] = {"node", "nodejs", "deno", "ruby", "perl",    "php",  "bash",
                                              "sh",   "dash",   "zsh",  "ksh",  "Rscript", "tclsh"};
// These also go by their name with a version run on: python3.11, pypy3, lua5.4.
constexpr std::string_view kVersionedInterpreters[] = {"python", "pypy", "lua"};
// Options of interpreters that take the next argument as their value, by the
// interpreters that read them so (bash's -r takes none): `python3 -X perf app.py` runs
// app.py, `node -r ts-node/register app.ts` app.ts.
constexpr std::string_view kPythonValueOptions[] = {"-X", "-W", "--check-hash-based-pycs"};
constexpr std::string_view kNodeValueOptions[] = {"-r", "--require",   "--import", "--loader", "--experimental-loader",
                                                  "-C", "--conditions"};
constexpr std::string_view kRubyValueOptions[] = {"-I", "-r", "-E"};
constexpr std::string_view kShellValueOptions[] = {"-o", "-O", "+o", "+O"};
constexpr std::string_view kLuaValueOptions[] = {"-l"};
constexpr std::string_view kPhpValueOptions[] = {"-d", "-c", "-z"};

bool listed(std::string_view word, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool is_version(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// "gcc", or one with a version after a dash: "gcc-12", "clang++-15".
bool is_compiler(std::string_view program) {
  const size_t dash = program.rfind('-');
  return listed(program, kCompilers) || (dash != std::string_view::npos && is_version(program.substr(dash + 1)) &&
                                         listed(program.substr(0, dash), kCompilers));
}

// The interpreter `program` is, by its name without a version: "python3.11" -> "python".
std::string_view interpreter_family(std::string_view program) {
  for (std::string_view name : kVersionedInterpreters) {
    if (program.starts_with(name) && (program.size() == name.size() || is_version(program.substr(name.size())))) {
      return name == "pypy" ? "python" : name;
    }
  }
  return program;
}

// Each interpreter's options that take a value, by its name without a version.
struct InterpreterValueOptions {
  std::string_view family;
  std::span<const std::string_view> options;
};
constexpr InterpreterValueOptions kValueOptionsByInterpreter[] = {
    {"python", kPythonValueOptions}, {"node", kNodeValueOptions},  {"nodejs", kNodeValueOptions},
    {"ruby", kRubyValueOptions},     {"bash", kShellValueOptions}, {"sh", kShellValueOptions},
    {"dash", kShellValueOptions},    {"zsh", kShellValueOptions},  {"ksh", kShellValueOptions},
    {"lua", kLuaValueOptions},       {"php", kPhpValueOptions}};

std::span<const std::string_view> interpreter_value_options(std::string_view program) {
  const std::string_view family = interpreter_family(program);
  for (const InterpreterValueOptions& interpreter : kValueOptionsByInterpreter) {
    if (interpreter.family == family) {
      return interpreter.options;
    }
  }
  return {};
}

bool is_interpreter(std::string_view program) {
  return listed(program, kInterpreters) || listed(interpreter_family(program), kVersionedInterpreters);
}

bool is_source_file(std::string_view arg) {
  const size_t dot = arg.rfind('.');
  return dot != std::string_view::npos && listed(arg.substr(dot + 1), kSourceExtensions);
}

bool is_option(std::string_view arg) { return arg.starts_with('-'); }

// One line (runs of white space as one space, none at the ends), at most
// kShortCommandChars characters: a longer one keeps one less and ends in "…".
std::string clip(std::string_view text) {
  std::string line;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !line.empty();
      continue;
    }
    if (space) {
      line += ' ';
      space = false;
    }
    line += c;
  }
  size_t characters = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) {
      continue;
    }
    if (++characters == kShortCommandChars) {
      // The character that starts here is the last that fits, unless more follow.
      size_t end = i + 1;
      while (end < line.size() && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) {
        ++end;
      }
      return end == line.size() ? line : line.substr(0, i) + "\u2026";
    }
  }
  return line;
}

// gcc hands `as` its output in a file of its own there (/tmp/ccXXXXXX.s), a name that
// tells one compile from another no more than the PID does.
bool is_temporary(std::string_view path) { return path.starts_with("/tmp/") || path.starts_with("/var/tmp/"); }

// The input file of a compiler command line: the last argument that names a source file
// and is no option's value, unless it is a temporary file. Without one (a link, an
// assembly of gcc's temporary), the -o output unless it is temporary too; else the
// temporary source, else the last plain argument.
std::optional<std::string> compiler_input(const std::vector<std::string>& args) {
  const std::string* last_source = nullptr;
  const std::string* last_plain = nullptr;
  const std::string* output = nullptr;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (listed(arg, kCompilerValueOptions)) {
      if (arg == "-o" && i + 1 < args.size()) {
        output = &args[i + 1];
      }
      ++i;
      continue;
    }
    if (arg.empty() || is_option(arg)) {
      continue;
    }
    (is_source_file(arg) ? last_source : last_plain) = &arg;
  }
  if (last_source != nullptr && !is_temporary(*last_source)) {
    return short_path(*last_source);
  }
  if (output != nullptr && !output->empty() && !is_temporary(*output)) {
    return short_path(*output);
  }
  const std::string* input = last_source != nullptr ? last_source : last_plain;
  return input != nullptr ? std::optional(short_path(*input)) : std::nullopt;
}

// What a linker writes: "-o app", "--output=app" or "--output app"; its inputs are the
// same objects and libraries in every link of a build.
std::optional<std::string> linker_output(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if ((arg == "-o" || arg == "--output") && i + 1 < args.size() && !args[i + 1].empty()) {
      return short_path(args[i + 1]);
    }
    if (arg.starts_with("--output=") && arg.size() > 9) {
      return short_path(std::string_view(arg).substr(9));
    }
  }
  return std::nullopt;
}

// `interpreter`: the program's name, or the process's when the program is none.
std::optional<std::string> interpreter_target(const std::vector<std::string>& args, std::string_view interpreter) {
  const std::span<const std::string_view> value_options = interpreter_value_options(interpreter);
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const bool has_value = i + 1 < args.size();
    if (listed(arg, value_options)) {
      ++i;
      continue;
    }
    if (arg == "-m" && has_value) {
      return clip("-m " + args[i + 1]);
    }
    if ((arg == "-c" || arg == "-e" || arg == "--eval") && has_value) {
      return clip(arg + " " + args[i + 1]);
    }
    if (arg == "--") {
      return has_value ? std::optional(short_path(args[i + 1])) : std::nullopt;
    }
    if (!is_option(arg)) {
      return short_path(arg);
    }
  }
  return std::nullopt;
}

std::optional<std::string> java_target(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-jar" && i + 1 < args.size()) {
      return short_path(args[i + 1]);
    }
    if (listed(arg, kJavaValueOptions)) {
      ++i;
      continue;
    }
    if (!is_option(arg)) {
      return clip(arg);
    }
  }
  return std::nullopt;
}

std::optional<std::string> first_argument(const std::vector<std::string>& args) {
  auto plain = std::find_if(args.begin() + 1, args.end(), [](const std::string& arg) { return !arg.empty() && !is_option(arg); });
  const std::string& chosen = plain != args.end() ? *plain : args[1];
  if (chosen.empty()) {
    return std::nullopt;
  }
  return chosen.find('/') != std::string::npos ? short_path(chosen) : clip(chosen);
}

// Where a program's telling argument is: by argv[0]'s file name, or by the process's
// name (a compiler or interpreter run through a wrapper).
enum class Shape { kCompiler, kLinker, kJava, kInterpreter, kOther };

Shape shape_of(std::string_view argv0, std::string_view name) {
  const std::string program = path_base_name(argv0);
  if (is_compiler(program) || is_compiler(name)) {
    return Shape::kCompiler;
  }
  if (listed(program, kLinkers) || listed(name, kLinkers)) {
    return Shape::kLinker;
  }
  if (program == "java") {
    return Shape::kJava;
  }
  if (is_interpreter(program) || is_interpreter(name)) {
    return Shape::kInterpreter;
  }
  return Shape::kOther;
}

}  // namespace

std::string short_path(std::string_view path) {
  std::vector<std::string_view> parts;
  for (size_t at = 0; at <= path.size();) {
    size_t slash = std::min(path.find('/', at), path.size());
    if (slash > at) {
      parts.push_back(path.substr(at, slash - at));
    }
    at = slash + 1;
  }
  if (parts.size() <= 2) {
    return clip(path);
  }
  return clip(std::string(parts[parts.size() - 2]) + "/" + std::string(parts.back()));
}

std::optional<std::string> with_one_more_path_part(const std::vector<std::string>& cmdline, std::string_view words) {
  if (words.empty() || words.find(' ') != std::string_view::npos) {
    return std::nullopt;
  }
  // From the end: a compiler's input is its last source argument.
  for (auto arg = cmdline.rbegin(); arg != cmdline.rend(); ++arg) {
    std::string_view path = *arg;
    if (path.size() <= words.size() || !path.ends_with(words) || path[path.size() - words.size() - 1] != '/') {
      continue;
    }
    std::string_view before = path.substr(0, path.size() - words.size() - 1);
    while (before.ends_with('/')) {
      before.remove_suffix(1);
    }
    const std::string_view part = before.substr(before.rfind('/') + 1);  // npos + 1: all of it
    if (part.empty() || part.size() + 1 + words.size() > 2 * kShortCommandChars) {
      return std::nullopt;
    }
    return std::string(part) + "/" + std::string(words);
  }
  return std::nullopt;
}

void tell_apart(std::vector<std::string>& words, const std::vector<const std::vector<std::string>*>& cmdlines,
                const std::vector<std::string_view>& names) {
  for (bool widened = true; widened;) {
    widened = false;
    std::map<std::pair<std::string_view, std::string_view>, int> alike;
    for (size_t i = 0; i < words.size(); ++i) {
      ++alike[{names[i], words[i]}];
    }
    std::vector<std::string> next = words;
    for (size_t i = 0; i < words.size(); ++i) {
      if (alike[{names[i], words[i]}] > 1) {
        if (auto wider = with_one_more_path_part(*cmdlines[i], words[i])) {
          next[i] = std::move(*wider);
          widened = true;
        }
      }
    }
    words = std::move(next);
  }
}

bool is_known_program(std::string_view argv0, std::string_view name) { return shape_of(argv0, name) != Shape::kOther; }

std::optional<std::string> title_words(const std::vector<std::string>& cmdline, std::string_view name) {
  if (cmdline.size() != 1 || name.empty()) {
    return std::nullopt;
  }
  const std::string_view title = cmdline[0];
  const size_t space = title.find(' ');
  if (space == std::string_view::npos) {
    return std::nullopt;
  }
  std::string_view first = title.substr(0, space);
  if (first.ends_with(':')) {
    first.remove_suffix(1);
  }
  // The kernel's name of a process is its program's, cut to 15 characters.
  const std::string program = path_base_name(first);
  if (program != name && !(name.size() == 15 && program.starts_with(name))) {
    return std::nullopt;  // a program whose path has a space, say
  }
  const std::string_view rest = trim_spaces(title.substr(space + 1), " ");
  return rest.empty() ? std::nullopt : std::optional(clip(rest));
}

std::optional<std::string> short_command(const std::vector<std::string>& cmdline, std::string_view name) {
  if (auto words = title_words(cmdline, name)) {
    return words;
  }
  if (cmdline.size() < 2) {
    return std::nullopt;
  }
  std::optional<std::string> words;
  switch (shape_of(cmdline[0], name)) {
    case Shape::kCompiler:
      words = compiler_input(cmdline);
      break;
    case Shape::kLinker:
      words = linker_output(cmdline);
      break;
    case Shape::kJava:
      words = java_target(cmdline);
      break;
    case Shape::kInterpreter: {
      const std::string program = path_base_name(cmdline[0]);
      words = interpreter_target(cmdline, is_interpreter(program) ? std::string_view(program) : name);
      break;
    }
    case Shape::kOther:
      words = first_argument(cmdline);
      break;
  }
  return words && !words->empty() ? words : std::nullopt;
}

}  // namespace canopy
