#include <cstdio>

#include "cli/commands.h"
#include "common/terminal_text.h"
#include "record/mark_channel.h"

namespace canopy::cli {

int run_mark_command(const MarkOptions& options) {
  std::string text;
  for (const auto& word : options.words) {
    text += (text.empty() ? "" : " ") + word;
  }
  if (auto status = record::send_mark(text); !status) {
    print_error(status.error().message);
    return 1;
  }
  return 0;
}

}  // namespace canopy::cli
