#include <cstdio>
#include <limits>

#include "analyze/diff.h"
#include "cli/commands.h"
#include "common/terminal_text.h"
#include "report/diff_format.h"
#include "store/reader.h"

namespace canopy::cli {

int run_diff_command(const DiffOptions& options) {
  auto a = store::Reader::open(options.path_a);
  if (!a) {
    print_error("recording A: " + a.error().message);
    return 1;
  }
  auto b = store::Reader::open(options.path_b);
  if (!b) {
    print_error("recording B: " + b.error().message);
    return 1;
  }
  auto diff = analyze::diff(*a, *b);
  if (!diff) {
    print_error(diff.error().message);
    return 1;
  }
  size_t rows = options.all ? std::numeric_limits<size_t>::max() : options.top;
  std::string text = options.json ? report::diff_json(*diff, options.path_a, options.path_b)
                                  : report::diff_text(*diff, options.path_a, options.path_b, rows);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace canopy::cli
