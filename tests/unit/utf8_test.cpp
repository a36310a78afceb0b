#include "common/utf8.h"

#include <gtest/gtest.h>

namespace canopy {
namespace {

TEST(Utf8, ValidTextIsKeptWithoutACopy) {
  std::string scratch;
  std::string text = "plain ASCII, then é, 漢字 and 🌲 in UTF-8";
  EXPECT_TRUE(is_valid_utf8(text));
  std::string_view out = sanitized_utf8(text, scratch);
  EXPECT_EQ(out.data(), text.data());
  EXPECT_TRUE(scratch.empty());
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  std::string scratch;
  EXPECT_EQ(sanitized_utf8("a\xFF" "b", scratch), "a\xEF\xBF\xBD" "b");
  // A lone continuation byte, a truncated sequence at the end, an overlong '/'.
  EXPECT_EQ(sanitized_utf8("\x80x\xE2\x82", scratch), "\xEF\xBF\xBDx\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(sanitized_utf8("\xC0\xAF", scratch), "\xEF\xBF\xBD\xEF\xBF\xBD");
  // UTF-16 surrogates and code points above U+10FFFF are not UTF-8.
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));
  EXPECT_TRUE(is_valid_utf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8, NulBytesAreDropped) {
  std::string scratch;
  EXPECT_EQ(sanitized_utf8(std::string_view("a\0b", 3), scratch), "ab");
  EXPECT_FALSE(is_valid_utf8(std::string_view("12345678\0", 9)));  // in the 8-byte fast path too
}

TEST(Utf8, PrefixEndsBetweenCharacters) {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC!";  // a, é (2 bytes), € (3 bytes), !
  EXPECT_EQ(utf8_prefix(text, 100), text);
  EXPECT_EQ(utf8_prefix(text, 3), "a\xC3\xA9");
  EXPECT_EQ(utf8_prefix(text, 2), "a") << "not half of é";
  EXPECT_EQ(utf8_prefix(text, 5), "a\xC3\xA9") << "not two thirds of €";
  EXPECT_EQ(utf8_prefix(text, 6), "a\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(utf8_prefix(text, 0), "");
}

}  // namespace
}  // namespace canopy
