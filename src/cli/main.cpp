// cli/: argument parsing and the subcommands. Thin: it checks what the user typed,
// turns it into options, and calls record/, store/, analyze/ and report/.
#include <cctype>
#include <cerrno>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "cli/commands.h"
#include "cli/flag_values.h"
#include "common/terminal_text.h"
#include "record/options.h"
#include "store/sqlite.h"

namespace {

// The subcommand's name as typed ("log add"), or "" for canopy itself.
std::string command_name(const CLI::App* subcommand) {
  std::string name;
  for (const CLI::App* cmd = subcommand; cmd && cmd->get_parent(); cmd = cmd->get_parent()) {
    name = cmd->get_name() + (name.empty() ? "" : " " + name);
  }
  return name;
}

// `canopy record`'s own failures are 125, apart from any status of its command; the
// other commands' bad command lines are 2.
int usage_status(const std::string& name) { return name == "record" ? canopy::record::kExitRecorderFailed : 2; }

// What was wrong with the command line, in canopy's words where CLI11's mislead. An
// option the command does not have is named, where CLI11 lists every word it could not
// place: `report --top 5 r.canopy` is "unknown option '--top'", not "the following
// arguments were not expected: r.canopy --top" (the 5 taken for the recording). A flag
// without its value is "--top needs a value".
std::string usage_text(const CLI::ParseError& e, const CLI::App* subcommand) {
  // A flag given last without its value: CLI11 says "--pid: 1 required INT:INT in
  // [1 - 4194304] missing", in its own names of types.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::string_view text = e.what();
    const size_t colon = text.find(": ");
    if (colon != std::string_view::npos && text.find(" required ", colon) != std::string_view::npos &&
        text.ends_with(" missing")) {
      return std::string(text.substr(0, colon)) + " needs a value";
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && subcommand != nullptr) {
    for (const std::string& word : subcommand->remaining()) {
      if (word.size() > 1 && word[0] == '-' && !std::isdigit(static_cast<unsigned char>(word[1]))) {
        return "unknown option '" + word.substr(0, word.find('=')) + "'";
      }
    }
  }
  return e.what();
}

// One line, naming what was wrong: CLI11's default adds a second "Run with --help" line.
int usage_error(const CLI::ParseError& e, const CLI::App* subcommand) {
  std::string name = command_name(subcommand);
  canopy::print_error(usage_text(e, subcommand) + " (see 'canopy " + name + (name.empty() ? "" : " ") + "--help')");
  return usage_status(name);
}

template <typename Options, CLI::App* (*add)(CLI::App&, Options&), int (*run)(const Options&)>
std::unique_ptr<canopy::cli::Subcommand> make() {
  return std::make_unique<canopy::cli::SubcommandOf<Options, add, run>>();
}

// Every subcommand, by the first word that names it.
struct SubcommandEntry {
  std::string_view name;
  std::unique_ptr<canopy::cli::Subcommand> (*make)();
};
namespace cli = canopy::cli;
const SubcommandEntry kSubcommands[] = {
    {"record", make<cli::RecordCliOptions, cli::add_record_command, cli::run_record_command>},
    {"report", make<cli::ReportOptions, cli::add_report_command, cli::run_report_command>},
    {"view", make<cli::ViewOptions, cli::add_view_command, cli::run_view_command>},
    {"log", make<cli::LogAddCliOptions, cli::add_log_command, cli::run_log_add_command>},
    {"mark", make<cli::MarkOptions, cli::add_mark_command, cli::run_mark_command>},
    {"export", make<cli::ExportOptions, cli::add_export_command, cli::run_export_command>},
    {"import", make<cli::ImportOptions, cli::add_import_command, cli::run_import_command>},
    {"diff", make<cli::DiffOptions, cli::add_diff_command, cli::run_diff_command>},
    {"heap", make<cli::HeapOptions, cli::add_heap_command, cli::run_heap_command>},
    {"profile", make<cli::ProfileOptions, cli::add_profile_command, cli::run_profile_command>},
};

// The subcommand a command line names in its first word, or "" (`canopy --help`, a
// typo): then every subcommand is built, for the help and the error to list them.
std::string_view named_subcommand(int argc, char** argv) {
  if (argc >= 2) {
    for (const SubcommandEntry& entry : kSubcommands) {
      if (entry.name == argv[1]) {
        return entry.name;
      }
    }
  }
  return {};
}

struct Built {
  std::unique_ptr<canopy::cli::Subcommand> subcommand;
  CLI::App* app;  // the one that runs (`log add`, not `log`)
};

// The subcommand whose flags were being read when parsing failed: the innermost one
// parsed (`log add` rather than `log`), or nullptr for canopy's own.
const CLI::App* innermost_parsed(const std::vector<Built>& built) {
  for (const Built& b : built) {
    for (const CLI::App* cmd = b.app; cmd && cmd->get_parent(); cmd = cmd->get_parent()) {
      if (cmd->parsed()) {
        return cmd;
      }
    }
  }
  return nullptr;
}

// What a command printed has all reached stdout, or it fails: a full disk under
// `canopy report --json > out.json` left the file cut short and the status 0. A failure
// the command reported already keeps its status and its line. (A pipe whose reader has
// gone stops a command with SIGPIPE before this, as it does any tool.) Not for `record`,
// whose status is its command's.
int after_stdout_flushed(std::string_view name, int status) {
  errno = 0;
  const bool written = std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (written || status != 0 || name == "record") {
    return status;
  }
  const std::string why = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
  canopy::print_error("cannot write to stdout" + why);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  canopy::store::configure_sqlite();
  CLI::App app{"canopy: a flight recorder for process trees"};
  app.set_version_flag("--version", CANOPY_VERSION);
  app.require_subcommand(1);

  // Only the subcommand the command line names is built. CLI11 builds every option of
  // every subcommand it is given, a fifth of what starting canopy costs (1.1 M of 5 M
  // user instructions for `canopy --version`); `canopy mark`, which an application may
  // call many times, need not build `record`'s options.
  const std::string_view named = named_subcommand(argc, argv);
  std::vector<Built> built;
  for (const SubcommandEntry& entry : kSubcommands) {
    if (named.empty() || named == entry.name) {
      auto subcommand = entry.make();
      CLI::App* added = subcommand->add_to(app);
      built.push_back({std::move(subcommand), added});
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const canopy::cli::FlagValueError& e) {
    // Its line names the flag, the value and what it takes: --help would add nothing.
    canopy::print_error(e.what());
    return usage_status(command_name(innermost_parsed(built)));
  } catch (const CLI::ParseError& e) {
    return usage_error(e, innermost_parsed(built));
  }
  for (Built& b : built) {
    if (b.app->parsed()) {
      const int status = b.subcommand->run();
      return after_stdout_flushed(command_name(b.app), status);
    }
  }
  return usage_status("");  // require_subcommand(1) leaves no way here
}
