// Cuts a file holding one JSON array or one JSON object into its top-level pieces
// (the array's elements, the object's members), streaming: a small scanner tracks
// strings and nesting, nothing else, so memory stays bounded by the largest piece,
// not the file. Each piece goes to the caller as text, for its own parser to validate
// and read. Places are line and column, for errors "FILE:LINE:COLUMN: reason".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace canopy {

struct TextPosition {
  int64_t line = 1;
  int64_t column = 1;  // in bytes, from 1

  // Moves past `bytes`.
  void advance(std::string_view bytes);
};

// "FILE:LINE:COLUMN: reason".
Error error_at(const std::string& path, const TextPosition& at, const std::string& reason);

// A byte as an error shows it: 'x', or byte 0x89 when it is not printable.
std::string shown_byte(char c);

enum class JsonContainer { kArray, kObject };

// How many bytes past a piece's text may be read, though they are not part of it: a
// parser that reads ahead in blocks (simdjson needs 64) can then take the text in place.
inline constexpr size_t kJsonPieceSlackBytes = 64;

struct JsonPiece {
  // As in the file: an element `{"pid": 1}`, or a member `"key": value` with the spaces
  // that follow it (a member ends only at ',' or '}'). Valid until the visitor returns.
  std::string_view text;
  int64_t index;       // from 0
  TextPosition start;  // of its first byte
  // False when the file ends inside the piece. Its parser then says where its JSON
  // breaks; if the visitor finds it whole and returns Ok, the scan reports the
  // container as not closed.
  bool complete;
};
using JsonPieceVisitor = std::function<Status(const JsonPiece& piece)>;

// The format's words for what it holds, from which the scanner's errors are made:
// "expected {expected}, found '{'{if_other_container}", "expected {piece} after ',',
// found ']'", "unexpected 'x' after {after_end}", "unexpected end of input: {container}
// is not closed", {too_long}.
struct JsonStreamWords {
  std::string expected;            // "an array of processes"
  std::string if_other_container;  // when the file holds the other kind: " (an object: ...)"
  std::string piece;               // "an element"
  std::string container;           // "the array"
  std::string after_end;           // "the array's end"
  std::string too_long;            // "one element is longer than 1 GiB"
};

struct JsonStreamFile {
  std::string path;
  JsonContainer container = JsonContainer::kArray;
  size_t max_piece_bytes = 0;
  JsonStreamWords words;
  // Called after each chunk with how far the scan has read.
  std::function<void(int64_t bytes_done, int64_t bytes_total)> progress;
  size_t chunk_bytes = size_t{1} << 20;  // one read; tests make it small to cut pieces
};

// Calls `visit` with each piece in order; stops at the first error, its own or the
// visitor's. A byte order mark at the file's start is skipped.
Status for_each_json_piece(const JsonStreamFile& file, const JsonPieceVisitor& visit);

}  // namespace canopy
