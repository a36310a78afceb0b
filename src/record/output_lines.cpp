#include "record/output_lines.h"

#include "common/utf8.h"

namespace canopy::record {
namespace {

// Skips one escape sequence starting at raw[i] == ESC and returns the index after it:
// CSI (ESC [ params final), OSC (ESC ] ... BEL or ESC \), or a two-byte ESC x.
size_t skip_escape(std::string_view raw, size_t i) {
  if (i + 1 >= raw.size()) {
    return raw.size();
  }
  char kind = raw[i + 1];
  size_t j = i + 2;
  if (kind == '[') {
    while (j < raw.size() && !(raw[j] >= 0x40 && raw[j] <= 0x7E)) {
      ++j;
    }
    return j < raw.size() ? j + 1 : j;
  }
  if (kind == ']') {
    for (; j < raw.size(); ++j) {
      if (raw[j] == '\a') {
        return j + 1;
      }
      if (raw[j] == '\033' && j + 1 < raw.size() && raw[j + 1] == '\\') {
        return j + 2;
      }
    }
    return j;
  }
  return j;
}

}  // namespace

std::string displayed_text(std::string_view raw) {
  while (!raw.empty() && raw.back() == '\r') {
    raw.remove_suffix(1);  // CRLF
  }
  if (size_t cr = raw.rfind('\r'); cr != raw.npos) {
    raw.remove_prefix(cr + 1);  // a progress line redrawn in place: its last state
  }
  std::string plain;
  plain.reserve(raw.size());
  for (size_t i = 0; i < raw.size();) {
    if (raw[i] == '\033') {
      i = skip_escape(raw, i);
    } else {
      plain += raw[i++];
    }
  }
  std::string text;
  append_sanitized_utf8(text, plain);
  return text;
}

void OutputLines::feed(std::string_view bytes, int64_t t_ms) {
  while (!bytes.empty()) {
    if (pending_.empty()) {
      pending_t_ms_ = t_ms;
    }
    size_t newline = bytes.find('\n');
    size_t take = newline == bytes.npos ? bytes.size() : newline;
    size_t room = kMaxLineBytes - pending_.size();
    if (take > room) {
      pending_.append(bytes.substr(0, room));
      bytes.remove_prefix(room);
      emit();
      continue;
    }
    pending_.append(bytes.substr(0, take));
    if (newline == bytes.npos) {
      return;
    }
    bytes.remove_prefix(newline + 1);
    emit();
  }
}

void OutputLines::flush() {
  if (!pending_.empty()) {
    emit();
  }
}

void OutputLines::emit() {
  sink_(pending_t_ms_, displayed_text(pending_));
  pending_.clear();
}

}  // namespace canopy::record
