#include "cli/terminal_live_view.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>

#include "common/signal_free_thread.h"
#include "report/live_table_format.h"

namespace canopy::cli {
namespace {

constexpr auto kTableRedrawEvery = std::chrono::seconds(1);
// The table's share of the screen: a third, within these bounds; below kMinScreenRows
// nothing is drawn, the command's output needs the room.
constexpr int kMinTableRows = 6;
constexpr int kMaxTableRows = 14;
constexpr int kMinScreenRows = 12;

// The whole of `text` to stderr; a terminal that went away ends nothing but the view.
void write_to_terminal(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    done += static_cast<size_t>(n);
  }
}

// The cursor to the start of a row (1-based) and that row cleared.
std::string cleared_row(int row) { return "\x1b[" + std::to_string(row) + ";1H\x1b[2K"; }

}  // namespace

std::unique_ptr<TerminalLiveView> TerminalLiveView::start(int64_t start_ms) {
  if (::isatty(STDERR_FILENO) != 1) {
    return nullptr;
  }
  std::unique_ptr<TerminalLiveView> view(new TerminalLiveView(start_ms));
  view->drawer_ = signal_free_thread([raw = view.get()] { raw->draw_loop(); });
  return view;
}

TerminalLiveView::~TerminalLiveView() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  drawer_.join();
  release();
}

void TerminalLiveView::publish(std::shared_ptr<const live::LiveFigures> figures) {
  std::lock_guard lock(mutex_);
  latest_ = std::move(figures);
  fresh_ = true;
}

void TerminalLiveView::draw_loop() {
  std::unique_lock lock(mutex_);
  while (!changed_.wait_for(lock, kTableRedrawEvery, [this] { return stopping_; })) {
    if (!fresh_) {
      continue;
    }
    std::shared_ptr<const live::LiveFigures> figures = latest_;
    fresh_ = false;
    lock.unlock();
    draw(*figures);
    lock.lock();
  }
}

void TerminalLiveView::reserve(int rows, int columns) {
  rows_ = rows;
  columns_ = columns;
  table_rows_ = rows < kMinScreenRows ? 0 : std::clamp(rows / 3, kMinTableRows, kMaxTableRows);
  if (table_rows_ == 0) {
    return;
  }
  // Room at the bottom (what is on the screen scrolls up), the cursor back above it,
  // and the scroll region ending above the table. Setting the region moves the
  // cursor home on most terminals: saved and restored around it.
  std::string text(static_cast<size_t>(table_rows_), '\n');
  text += "\x1b[" + std::to_string(table_rows_) + "A";
  text += "\x1b" "7\x1b[1;" + std::to_string(rows_ - table_rows_) + "r\x1b" "8";
  write_to_terminal(text);
}

void TerminalLiveView::release() {
  if (table_rows_ == 0) {
    return;
  }
  std::string text = "\x1b" "7\x1b[r";
  for (int i = 0; i < table_rows_; ++i) {
    text += cleared_row(rows_ - table_rows_ + 1 + i);
  }
  text += "\x1b" "8";
  write_to_terminal(text);
  table_rows_ = 0;
}

void TerminalLiveView::draw(const live::LiveFigures& figures) {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_row == 0 || size.ws_col == 0) {
    size.ws_row = 24;  // a terminal that does not say (a serial line): the classic size
    size.ws_col = 80;
  }
  if (size.ws_row != rows_ || size.ws_col != columns_) {
    release();
    reserve(size.ws_row, size.ws_col);
  }
  if (table_rows_ == 0) {
    return;
  }
  // The headlines and the column header, then processes, keeping a row for "… and N more".
  std::vector<std::string> lines = report::live_table_lines(
      figures, start_ms_, static_cast<size_t>(table_rows_ - 4), static_cast<size_t>(columns_ - 1));
  std::string text = "\x1b" "7";
  for (int i = 0; i < table_rows_; ++i) {
    text += cleared_row(rows_ - table_rows_ + 1 + i);
    if (static_cast<size_t>(i) < lines.size()) {
      text += i == 2 ? "\x1b[2m" + lines[i] + "\x1b[0m" : lines[i];  // the column header dimmed
    }
  }
  text += "\x1b" "8";
  write_to_terminal(text);
}

}  // namespace canopy::cli
