#include "common/terminal_text.h"

#include <gtest/gtest.h>

namespace canopy {
namespace {

TEST(TerminalText, PrintableTextIsKept) {
  EXPECT_EQ(terminal_safe("make -j8 'a b' /tmp/x"), "make -j8 'a b' /tmp/x");
  EXPECT_EQ(terminal_safe("é 漢字 🌲"), "é 漢字 🌲");
  EXPECT_EQ(terminal_safe(R"(C:\path)"), R"(C:\path)");
}

TEST(TerminalText, ControlCharactersAreEscaped) {
  // Clear the screen, then set the window title: what a hostile name would do.
  EXPECT_EQ(terminal_safe("\x1b[2J\x1b]0;pwn\x07"), R"(\e[2J\e]0;pwn\a)");
  EXPECT_EQ(terminal_safe("two\nlines\r\tend"), R"(two\nlines\r\tend)");
  EXPECT_EQ(terminal_safe(std::string_view("a\0b\x01\x7f", 5)), R"(a\x00b\x01\x7f)");
  // C1 controls: U+009B is CSI to a terminal that obeys C1.
  EXPECT_EQ(terminal_safe("\xc2\x9b" "31m"), R"(\xc2\x9b31m)");
  EXPECT_EQ(terminal_safe("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is not a control
}

TEST(TerminalText, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(terminal_safe("bad\xff\xfe"), R"(bad\xff\xfe)");
  EXPECT_EQ(terminal_safe("\xe2\x82"), R"(\xe2\x82)");  // a sequence cut short
  EXPECT_EQ(terminal_safe("\xc0\xaf"), R"(\xc0\xaf)");  // an overlong '/'
}

}  // namespace
}  // namespace canopy
