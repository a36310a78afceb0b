// Adds one imported log to a recording, all or nothing: everything happens in one
// transaction that only commit() makes durable. A failed or abandoned import (an
// error, an exception, the process killed) leaves the recording exactly as it was.
//
// Rows go to SQLite from a thread of its own, in batches, while the caller parses the
// next batch: on two cores that nearly doubles the import rate.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"
#include "store/recording.h"
#include "store/sqlite.h"

namespace canopy::store {

// Rows waiting to be inserted: times, and texts packed in one buffer.
struct EventBatch {
  std::vector<int64_t> t_ms;
  std::vector<size_t> text_ends;  // text i is text[text_ends[i-1], text_ends[i])
  std::string text;

  size_t size() const { return t_ms.size(); }
  void clear() {
    t_ms.clear();
    text_ends.clear();
    text.clear();
  }
};

class EventBatchWriter;

// What begin() does when the recording already holds a log with the same content:
// its events would be there twice.
enum class SameContent { kRefuse, kAddAgain };

class LogImport {
 public:
  // Opens `path` for writing, refusing a recording that is still being recorded,
  // upgrades a format 1 file, and registers the source with the SHA-256 of its
  // content (64 hex digits). Events outside [span_start_ms, span_end_ms] are kept but
  // counted.
  static Result<LogImport> begin(const std::string& path, const LogSourceRow& source, const std::string& content_sha256,
                                 SameContent same_content, int64_t span_start_ms, int64_t span_end_ms);
  LogImport(LogImport&&) noexcept;
  LogImport& operator=(LogImport&&) = delete;
  ~LogImport();

  // A log line, kind "log". The text is stored as given: callers make it valid UTF-8.
  // A write error surfaces from a later add() or from commit().
  Status add(int64_t t_ms, std::string_view text);
  // Writes what is left and the counts into the source's row, and commits.
  Status commit();

  int64_t events() const { return events_; }
  int64_t outside_span() const { return outside_span_; }

 private:
  LogImport();
  Error write_error() const;

  std::string path_;
  ScopedDb db_;
  std::unique_ptr<EventBatchWriter> writer_;
  EventBatch filling_;
  int64_t source_id_ = 0;
  int64_t span_start_ms_ = 0;
  int64_t span_end_ms_ = 0;
  int64_t events_ = 0;
  int64_t outside_span_ = 0;
  bool open_transaction_ = false;
};

}  // namespace canopy::store
