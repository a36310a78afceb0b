#include "common/terminal_text.h"

#include "common/utf8.h"

namespace canopy {
namespace {

void append_hex_byte(std::string& out, unsigned char byte) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[byte >> 4];
  out += kDigits[byte & 0xF];
}

// The escape of an ASCII control character (below 0x20, or DEL).
void append_control(std::string& out, unsigned char byte) {
  switch (byte) {
    case 0x1B:
      out += "\\e";
      return;
    case '\a':
      out += "\\a";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
    default:
      append_hex_byte(out, byte);
  }
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    auto byte = static_cast<unsigned char>(text[0]);
    size_t length = utf8_sequence_length(text);
    // U+0080 to U+009F: C2 80 to C2 9F.
    bool c1_control = length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[1]) <= 0x9F;
    if (length == 0 && byte != 0) {
      append_hex_byte(out, byte);  // not UTF-8
      length = 1;
    } else if (byte < 0x20 || byte == 0x7F) {
      append_control(out, byte);  // NUL too (length 0)
      length = 1;
    } else if (c1_control) {
      append_hex_byte(out, byte);
      append_hex_byte(out, static_cast<unsigned char>(text[1]));
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

void print_line(std::FILE* stream, std::string_view message) {
  std::string line = "canopy: " + terminal_safe(message) + "\n";
  std::fwrite(line.data(), 1, line.size(), stream);
}

}  // namespace canopy
