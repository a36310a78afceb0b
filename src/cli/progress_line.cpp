#include "cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

#include "common/terminal_text.h"
#include "common/text.h"

namespace canopy::cli {
namespace {

constexpr auto kQuietFor = std::chrono::seconds(1);
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

}  // namespace

ProgressLine::ProgressLine(std::string label)
    : label_(terminal_safe(label)), terminal_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(int64_t bytes_done, int64_t bytes_total) {
  if (!terminal_) {
    return;
  }
  auto now = Clock::now();
  if (now - start_ < kQuietFor || now - last_draw_ < kRedrawEvery) {
    return;
  }
  last_draw_ = now;
  shown_ = true;
  if (bytes_total > 0) {
    std::fprintf(stderr, "\r\033[Kcanopy: %s: %d%% (%s of %s)", label_.c_str(),
                 static_cast<int>(100 * bytes_done / bytes_total), format_bytes(bytes_done).c_str(),
                 format_bytes(bytes_total).c_str());
  } else {
    std::fprintf(stderr, "\r\033[Kcanopy: %s: %s", label_.c_str(), format_bytes(bytes_done).c_str());
  }
  std::fflush(stderr);
}

void ProgressLine::finish() {
  if (shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    shown_ = false;
  }
}

}  // namespace canopy::cli
