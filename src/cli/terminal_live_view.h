// record --live: the tree's figures (report/live_table_format.h) redrawn once a second
// at the bottom of the terminal while the command runs, like top for one tree.
//
// The table keeps the last lines of the screen to itself: a scroll region set above it
// (as apt does for its progress line) lets the command's own output, which reaches the
// terminal without canopy, scroll in the lines above. It is redrawn from a thread of
// its own, so the sampling loop only hands it the latest figures (a terminal that
// blocks, scrolled back or stopped with Ctrl-S, holds up the drawing, never the
// recording). At the end the table is erased and the screen given back whole, so the
// summary prints where it always did.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "live/live_figures.h"

namespace canopy::cli {

class TerminalLiveView final : public live::LiveFiguresSink {
 public:
  // Nullptr when stderr is not a terminal: --live then does nothing, as the issue's
  // "degrade to nothing" asks (CI logs, pipes).
  static std::unique_ptr<TerminalLiveView> start(int64_t start_ms);
  ~TerminalLiveView() override;  // erases the table and gives the screen back
  TerminalLiveView(const TerminalLiveView&) = delete;
  TerminalLiveView& operator=(const TerminalLiveView&) = delete;

  void publish(std::shared_ptr<const live::LiveFigures> figures) override;

 private:
  explicit TerminalLiveView(int64_t start_ms) : start_ms_(start_ms) {}
  void draw_loop();
  // The screen's size now, and the region the table keeps (its first row).
  void reserve(int rows, int columns);
  void release();
  void draw(const live::LiveFigures& figures);

  int64_t start_ms_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const live::LiveFigures> latest_;
  bool fresh_ = false;
  bool stopping_ = false;
  std::thread drawer_;
  // The screen as last reserved: 0 rows before the first draw.
  int rows_ = 0;
  int columns_ = 0;
  int table_rows_ = 0;
};

}  // namespace canopy::cli
