// Expected instants were worked out with GNU date on the test author's machine, never
// with the code under test, e.g.
//   date -u -d '2026-11-22 10:15:30' +%s                     -> 1795342530
//   TZ=Europe/Berlin date -d '2026-07-15 12:00:00' +%s       -> 1784109600
// and the 2026 Berlin transitions with `zdump -v -c 2026,2027 Europe/Berlin`:
// 29 Mar 01:00 UTC (02:00 CET -> 03:00 CEST), 25 Oct 01:00 UTC (03:00 CEST -> 02:00 CET).
#include "logs/timestamp.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace canopy::logs {
namespace {

constexpr int64_t kNov22_101530Utc_ms = 1795342530'000;  // 2026-11-22 10:15:30 UTC
constexpr int64_t kNov22_0900Utc_ms = 1795338000'000;    // 2026-11-22 09:00:00 UTC

LocalZone load_zone(std::string_view name) {
  auto zone = LocalZone::load(name);
  if (!zone) {
    ADD_FAILURE() << zone.error().message;
    return LocalZone::load("UTC").value();
  }
  return std::move(zone).value();
}

struct ParsedLine {
  int64_t epoch_ms;
  TimestampForm form;
  std::string message;  // line.substr(length)
};

// The timestamp and the message it leaves, or nullopt.
std::optional<ParsedLine> parse(std::string_view line, const LocalZone& zone,
                                int64_t reference_ms = kNov22_0900Utc_ms,
                                std::optional<int64_t> previous_ms = std::nullopt,
                                std::optional<TimestampForm> only = std::nullopt) {
  auto found = parse_leading_timestamp(line, TimestampContext{&zone, reference_ms, previous_ms}, only);
  if (!found) return std::nullopt;
  EXPECT_LE(found->length, line.size()) << line;
  return ParsedLine{found->epoch_ms, found->form, std::string(line.substr(found->length))};
}

// --- ISO 8601 -----------------------------------------------------------------------

TEST(TimestampIso, TOrSpaceBetweenDateAndTime) {
  const LocalZone utc = load_zone("UTC");
  auto t = parse("2026-11-22T10:15:30Z GET /index.html", utc);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->epoch_ms, kNov22_101530Utc_ms);
  EXPECT_EQ(t->form, TimestampForm::kIso);
  EXPECT_EQ(t->message, "GET /index.html");

  auto s = parse("2026-11-22 10:15:30 worker started", utc);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->epoch_ms, kNov22_101530Utc_ms);
  EXPECT_EQ(s->message, "worker started");
}

TEST(TimestampIso, LengthCoversTimestampAndSeparator) {
  const LocalZone utc = load_zone("UTC");
  const TimestampContext context{&utc, kNov22_0900Utc_ms, std::nullopt};
  auto plain = parse_leading_timestamp("2026-11-22 10:15:30 x", context);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->length, 19u + 1);  // date 10, 'T' 1, time 8; one space
  auto tabs = parse_leading_timestamp("2026-11-22T10:15:30.123Z\t\t x", context);
  ASSERT_TRUE(tabs);
  EXPECT_EQ(tabs->length, 24u + 3);  // ".123Z" adds 5; two tabs and a space
  auto alone = parse_leading_timestamp("2026-11-22T10:15:30Z", context);
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->length, 20u);
}

TEST(TimestampIso, PythonLoggingAndLog4jComma) {
  const LocalZone utc = load_zone("UTC");
  auto python = parse("2026-11-22 10:15:30,123 - app.db - INFO - connected", utc);
  ASSERT_TRUE(python);
  EXPECT_EQ(python->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(python->message, "- app.db - INFO - connected");

  auto log4j = parse("2026-11-22 10:15:30,007 INFO  [main] o.a.Foo - up", utc);
  ASSERT_TRUE(log4j);
  EXPECT_EQ(log4j->epoch_ms, kNov22_101530Utc_ms + 7);
  EXPECT_EQ(log4j->message, "INFO  [main] o.a.Foo - up");
}

TEST(TimestampIso, FractionsKeepMillisecondsAndTruncate) {
  const LocalZone utc = load_zone("UTC");
  EXPECT_EQ(parse("2026-11-22T10:15:30.5Z x", utc)->epoch_ms, kNov22_101530Utc_ms + 500);
  EXPECT_EQ(parse("2026-11-22T10:15:30.12Z x", utc)->epoch_ms, kNov22_101530Utc_ms + 120);
  EXPECT_EQ(parse("2026-11-22T10:15:30.123Z x", utc)->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(parse("2026-11-22T10:15:30.123456Z x", utc)->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(parse("2026-11-22T10:15:30.999999999Z x", utc)->epoch_ms, kNov22_101530Utc_ms + 999);
  EXPECT_EQ(parse("2026-11-22 10:15:30,9 x", utc)->epoch_ms, kNov22_101530Utc_ms + 900);
  // Ten digits is no clock's precision.
  EXPECT_FALSE(parse("2026-11-22T10:15:30.1234567890Z x", utc));
}

TEST(TimestampIso, ZoneSpellings) {
  // The context zone is -05:30, so a zone in the line visibly wins over it.
  const LocalZone minus_0530 = load_zone("-05:30");
  EXPECT_EQ(parse("2026-11-22T10:15:30Z x", minus_0530)->epoch_ms, kNov22_101530Utc_ms);
  // 10:15:30+01:00 = 09:15:30 UTC = 1795338930.
  EXPECT_EQ(parse("2026-11-22T10:15:30+01:00 x", minus_0530)->epoch_ms, 1795338930'000);
  EXPECT_EQ(parse("2026-11-22T10:15:30+0100 x", minus_0530)->epoch_ms, 1795338930'000);
  EXPECT_EQ(parse("2026-11-22T10:15:30+01 x", minus_0530)->epoch_ms, 1795338930'000);
  // 10:15:30+05:30 = 04:45:30 UTC = 1795322730.
  EXPECT_EQ(parse("2026-11-22T10:15:30+05:30 x", minus_0530)->epoch_ms, 1795322730'000);
  EXPECT_EQ(parse("2026-11-22T10:15:30+0530 x", minus_0530)->epoch_ms, 1795322730'000);
  EXPECT_EQ(parse("2026-11-22T10:15:30-00:00 x", minus_0530)->epoch_ms, kNov22_101530Utc_ms);

  auto with_fraction = parse("2026-11-22T10:15:30.250+01:00 x", minus_0530);
  ASSERT_TRUE(with_fraction);
  EXPECT_EQ(with_fraction->epoch_ms, 1795338930'250);
  EXPECT_EQ(with_fraction->message, "x");
}

TEST(TimestampIso, ZoneAfterOneSpace) {
  const LocalZone minus_0530 = load_zone("-05:30");
  auto postgres = parse("2026-11-22 10:15:30.123 UTC [4711] LOG:  checkpoint", minus_0530);
  ASSERT_TRUE(postgres);
  EXPECT_EQ(postgres->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(postgres->message, "[4711] LOG:  checkpoint");

  auto git = parse("2026-11-22 10:15:30 +0100 commit", minus_0530);
  ASSERT_TRUE(git);
  EXPECT_EQ(git->epoch_ms, 1795338930'000);
  EXPECT_EQ(git->message, "commit");

  // "+12 items" is the message, not a zone: the time is naive, read at -05:30, which
  // puts 10:15:30 at 15:45:30 UTC = 1795362330.
  auto items = parse("2026-11-22 10:15:30 +12 items", minus_0530);
  ASSERT_TRUE(items);
  EXPECT_EQ(items->epoch_ms, 1795362330'000);
  EXPECT_EQ(items->message, "+12 items");
  auto word = parse("2026-11-22 10:15:30 UTCOffset changed", minus_0530);
  ASSERT_TRUE(word);
  EXPECT_EQ(word->epoch_ms, 1795362330'000);
  EXPECT_EQ(word->message, "UTCOffset changed");
}

TEST(TimestampIso, NaiveTimeInBerlinWinterAndSummer) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  // CET, +01:00: TZ=Europe/Berlin date -d '2026-01-15 12:00:00' +%s -> 1768474800.
  EXPECT_EQ(parse("2026-01-15 12:00:00 x", berlin)->epoch_ms, 1768474800'000);
  // CEST, +02:00: 1784109600.
  EXPECT_EQ(parse("2026-07-15 12:00:00 x", berlin)->epoch_ms, 1784109600'000);
}

TEST(TimestampIso, LeapSecondIsTheLastMillisecondOfTheMinute) {
  const LocalZone utc = load_zone("UTC");
  // 2016-12-31 23:59:59 UTC = 1483228799.
  EXPECT_EQ(parse("2016-12-31T23:59:60Z x", utc)->epoch_ms, 1483228799'999);
}

TEST(TimestampIso, LeapDay) {
  const LocalZone utc = load_zone("UTC");
  // 2028-02-29 12:00:00 UTC = 1835438400.
  EXPECT_EQ(parse("2028-02-29 12:00:00 x", utc)->epoch_ms, 1835438400'000);
  EXPECT_FALSE(parse("2026-02-29 12:00:00 x", utc));
  EXPECT_FALSE(parse("2100-02-29 12:00:00 x", utc));
}

TEST(TimestampIso, InvalidDatesAndTimes) {
  const LocalZone utc = load_zone("UTC");
  for (std::string_view line : {
           "2026-13-01 00:00:00 x", "2026-00-10 00:00:00 x", "2026-11-00 00:00:00 x",
           "2026-02-30 12:00:00 x", "2026-11-31 12:00:00 x", "2026-11-22 24:00:00 x",
           "2026-11-22 10:60:00 x", "2026-11-22 10:15:61 x", "2026-11-22 10:15 x",
           "2026-11-22 x", "2026-11-22T10:15:30x", "2026-11-22T10:15:30.5x",
           "2026-11-22T10:15:30+1 x", "2026-11-22T10:15:30+25:00 x", "2026-11-22T10:15:30+01:0 x",
           "2026-11-22T10:15:30+01:60 x", "2026-11-22  10:15:30 x", "2026/11/22 10:15:30 x",
           "2026-11-22t10:15:30 x", "26-11-22 10:15:30 x", "2026-1-22 10:15:30 x",
           "2026-11-22 1:15:30 x", "2026-"}) {
    EXPECT_FALSE(parse(line, utc)) << line;
  }
}

// --- epoch numbers --------------------------------------------------------------------

TEST(TimestampEpoch, Seconds) {
  const LocalZone berlin = load_zone("Europe/Berlin");  // epoch times ignore the zone
  // date -u -d @1643811426 -> Wed Feb  2 14:17:06 UTC 2022
  auto t = parse("1643811426 rows=12", berlin);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->epoch_ms, 1643811426'000);
  EXPECT_EQ(t->form, TimestampForm::kEpochSeconds);
  EXPECT_EQ(t->message, "rows=12");
}

TEST(TimestampEpoch, SecondsWithFraction) {
  const LocalZone utc = load_zone("UTC");
  EXPECT_EQ(parse("1643811426.5 x", utc)->epoch_ms, 1643811426'500);
  EXPECT_EQ(parse("1643811426.123 x", utc)->epoch_ms, 1643811426'123);
  EXPECT_EQ(parse("1643811426.123456 x", utc)->epoch_ms, 1643811426'123);
  EXPECT_EQ(parse("1643811426.123456789 x", utc)->epoch_ms, 1643811426'123);
  EXPECT_FALSE(parse("1643811426.1234567890 x", utc));
  EXPECT_FALSE(parse("1643811426. x", utc));
}

TEST(TimestampEpoch, Milliseconds) {
  const LocalZone utc = load_zone("UTC");
  auto t = parse("1643811426123 GET /", utc);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->epoch_ms, 1643811426123);
  EXPECT_EQ(t->form, TimestampForm::kEpochMillis);
  EXPECT_EQ(t->message, "GET /");
}

TEST(TimestampEpoch, AllowedFollowers) {
  const LocalZone utc = load_zone("UTC");
  EXPECT_EQ(parse("1643811426", utc)->message, "");
  EXPECT_EQ(parse("1643811426\tx", utc)->message, "x");
  EXPECT_EQ(parse("1643811426,x", utc)->message, ",x");
  EXPECT_EQ(parse("1643811426: x", utc)->message, ": x");
  EXPECT_EQ(parse("1643811426123:x", utc)->message, ":x");
}

TEST(TimestampEpoch, NotTimestamps) {
  const LocalZone utc = load_zone("UTC");
  for (std::string_view line :
       {"1643811426abc", "1643811426123abc", "12345", "12345 rows", "42 items",
        "16438114261 x",     // 11 digits
        "164381142612 x",    // 12
        "16438114261234 x",  // 14
        "164381142612345 x", "1643811426] x", "1643811426-7", "1643811426.5.1 x",
        "1643811426123.5 x", "0643811426 x", "1643811426/x"}) {
    EXPECT_FALSE(parse(line, utc)) << line;
  }
}

// --- syslog ---------------------------------------------------------------------------

TEST(TimestampSyslog, TwoDigitDay) {
  const LocalZone utc = load_zone("UTC");
  auto t = parse("Nov 22 10:15:30 web1 sshd[812]: Accepted publickey", utc);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->epoch_ms, kNov22_101530Utc_ms);
  EXPECT_EQ(t->form, TimestampForm::kSyslog);
  EXPECT_EQ(t->message, "web1 sshd[812]: Accepted publickey");
}

TEST(TimestampSyslog, DayPaddedWithSpaceOrNot) {
  const LocalZone utc = load_zone("UTC");
  // 2026-11-02 10:15:30 UTC = 1793614530.
  auto padded = parse("Nov  2 10:15:30 web1 cron[1]: x", utc);
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->epoch_ms, 1793614530'000);
  EXPECT_EQ(padded->message, "web1 cron[1]: x");
  EXPECT_EQ(parse("Nov 2 10:15:30 web1", utc)->epoch_ms, 1793614530'000);
  EXPECT_EQ(parse("Nov 02 10:15:30 web1", utc)->epoch_ms, 1793614530'000);
}

TEST(TimestampSyslog, Fraction) {
  const LocalZone utc = load_zone("UTC");
  EXPECT_EQ(parse("Nov 22 10:15:30.123456 web1", utc)->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(parse("Nov 22 10:15:30.5 web1", utc)->epoch_ms, kNov22_101530Utc_ms + 500);
}

TEST(TimestampSyslog, YearRollsForwardIntoNextYear) {
  const LocalZone utc = load_zone("UTC");
  // Recording starts 2026-12-31 23:59:00 UTC (1798761540); the line is 2027-01-01
  // 00:00:05 UTC (1798761605), not a day short of a year earlier.
  auto t = parse("Jan  1 00:00:05 web1 x", utc, 1798761540'000);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->epoch_ms, 1798761605'000);
}

TEST(TimestampSyslog, YearRollsBackIntoPreviousYear) {
  const LocalZone utc = load_zone("UTC");
  // Recording starts 2027-01-01 00:00:30 UTC (1798761630); a line written just before
  // it is 2026-12-31 23:59:50 UTC (1798761590).
  EXPECT_EQ(parse("Dec 31 23:59:50 web1 x", utc, 1798761630'000)->epoch_ms, 1798761590'000);
}

TEST(TimestampSyslog, YearIsTheLocalOneNotUtc) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  // Start 2026-12-31 23:59:00 Berlin = 22:59 UTC (1798757940); "Jan 1 00:00:05" Berlin
  // = 2026-12-31 23:00:05 UTC (1798758005): same UTC year, next local year.
  EXPECT_EQ(parse("Jan  1 00:00:05 x", berlin, 1798757940'000)->epoch_ms, 1798758005'000);
  // Start 2026-12-31 23:30 UTC (1798759800), already 2027 in Berlin; "Jan  1 00:20:00"
  // Berlin = 2026-12-31 23:20 UTC (1798759200).
  EXPECT_EQ(parse("Jan  1 00:20:00 x", berlin, 1798759800'000)->epoch_ms, 1798759200'000);
}

TEST(TimestampSyslog, NearestYearCountsTheZoneNearAHalfYearTie) {
  const LocalZone plus_12 = load_zone("+12:00");
  // Start 2026-07-02 06:00 UTC (1782972000). "Jan  1 00:00:00" at +12:00 is either
  // 2025-12-31 12:00 UTC (1767182400, 182.75 days before) or 2026-12-31 12:00 UTC
  // (1798718400, 182.25 days after): the later one, though read as UTC the line would
  // be nearer in 2026 (182.25 days before against 182.75 after).
  EXPECT_EQ(parse("Jan  1 00:00:00 x", plus_12, 1782972000'000)->epoch_ms, 1798718400'000);
}

TEST(TimestampSyslog, LeapDay) {
  const LocalZone utc = load_zone("UTC");
  // Start 2028-03-01 00:00 UTC (1835481600); Feb 29 12:00 is 2028-02-29 (1835438400).
  EXPECT_EQ(parse("Feb 29 12:00:00 x", utc, 1835481600'000)->epoch_ms, 1835438400'000);
}

TEST(TimestampSyslog, NotTimestamps) {
  const LocalZone utc = load_zone("UTC");
  for (std::string_view line :
       {"Nov 32 10:15:30 x", "Nov 31 10:15:30 x", "Nov 0 10:15:30 x", "Nov 22 25:00:00 x",
        "Nov 22 10:15 x", "Nov 22 10:15:30x", "Nov 222 10:15:30 x", "Nov   2 10:15:30 x",
        "Nov  22 10:15:30 x", "nov 22 10:15:30 x", "NOV 22 10:15:30 x", "Nox 22 10:15:30 x",
        "Mon Nov 22 10:15:30 2026", "November 22 10:15:30 x", "Nov22 10:15:30 x", "Nov",
        "N", "Done.", "Failed to start", "Jan"}) {
    EXPECT_FALSE(parse(line, utc)) << line;
  }
}

// --- shared rules ---------------------------------------------------------------------

TEST(TimestampBracketed, EachForm) {
  const LocalZone utc = load_zone("UTC");
  auto iso = parse("[2026-11-22 10:15:30,123] INFO started", utc);
  ASSERT_TRUE(iso);
  EXPECT_EQ(iso->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(iso->message, "INFO started");

  auto zoned = parse("[2026-11-22T10:15:30+01:00]\tx", utc);
  ASSERT_TRUE(zoned);
  EXPECT_EQ(zoned->epoch_ms, 1795338930'000);
  EXPECT_EQ(zoned->message, "x");

  auto seconds = parse("[1643811426.5] x", utc);
  ASSERT_TRUE(seconds);
  EXPECT_EQ(seconds->epoch_ms, 1643811426'500);
  EXPECT_EQ(seconds->message, "x");

  auto millis = parse("[1643811426123][main] x", utc);
  ASSERT_TRUE(millis);
  EXPECT_EQ(millis->epoch_ms, 1643811426123);
  EXPECT_EQ(millis->message, "[main] x");

  auto syslog = parse("[Nov 22 10:15:30] x", utc);
  ASSERT_TRUE(syslog);
  EXPECT_EQ(syslog->epoch_ms, kNov22_101530Utc_ms);
  EXPECT_EQ(syslog->message, "x");

  const TimestampContext context{&utc, kNov22_0900Utc_ms, std::nullopt};
  EXPECT_EQ(parse_leading_timestamp("[2026-11-22 10:15:30] x", context)->length, 22u);
}

TEST(TimestampBracketed, UnclosedKeepsTheRestAsMessage) {
  const LocalZone utc = load_zone("UTC");
  // Celery: "[%(asctime)s: %(levelname)s/%(processName)s] %(message)s".
  auto celery = parse("[2026-11-22 10:15:30,123: INFO/MainProcess] Task done", utc);
  ASSERT_TRUE(celery);
  EXPECT_EQ(celery->epoch_ms, kNov22_101530Utc_ms + 123);
  EXPECT_EQ(celery->message, ": INFO/MainProcess] Task done");
  EXPECT_FALSE(parse("[ 2026-11-22 10:15:30] x", utc));
  EXPECT_FALSE(parse("[[2026-11-22 10:15:30]] x", utc));
}

TEST(TimestampOnly, LockedFormRejectsTheOthers) {
  const LocalZone utc = load_zone("UTC");
  const auto none = std::nullopt;
  // Inside a stack trace of an ISO log, "1643811426 rows" is a continuation line.
  EXPECT_FALSE(parse("1643811426 rows", utc, kNov22_0900Utc_ms, none, TimestampForm::kIso));
  EXPECT_FALSE(parse("Nov 22 10:15:30 x", utc, kNov22_0900Utc_ms, none, TimestampForm::kIso));
  EXPECT_EQ(parse("2026-11-22 10:15:30 x", utc, kNov22_0900Utc_ms, none, TimestampForm::kIso)
                ->epoch_ms,
            kNov22_101530Utc_ms);

  const auto seconds = TimestampForm::kEpochSeconds;
  EXPECT_FALSE(parse("1643811426123 x", utc, kNov22_0900Utc_ms, none, seconds));
  EXPECT_FALSE(parse("2026-11-22 10:15:30 x", utc, kNov22_0900Utc_ms, none, seconds));
  EXPECT_EQ(parse("1643811426 x", utc, kNov22_0900Utc_ms, none, seconds)->epoch_ms,
            1643811426'000);

  const auto millis = TimestampForm::kEpochMillis;
  EXPECT_FALSE(parse("1643811426 x", utc, kNov22_0900Utc_ms, none, millis));
  EXPECT_EQ(parse("1643811426123 x", utc, kNov22_0900Utc_ms, none, millis)->epoch_ms,
            1643811426123);

  const auto syslog = TimestampForm::kSyslog;
  EXPECT_FALSE(parse("2026-11-22 10:15:30 x", utc, kNov22_0900Utc_ms, none, syslog));
  EXPECT_FALSE(parse("1643811426 x", utc, kNov22_0900Utc_ms, none, syslog));
  EXPECT_EQ(parse("Nov 22 10:15:30 x", utc, kNov22_0900Utc_ms, none, syslog)->epoch_ms,
            kNov22_101530Utc_ms);
}

TEST(TimestampNone, LinesWithoutATimestamp) {
  const LocalZone utc = load_zone("UTC");
  for (std::string_view line :
       {"", " ", "at com.foo.Bar.baz(Bar.java:42)", "\tat com.foo.Bar.baz(Bar.java:42)",
        "Traceback (most recent call last):", "  File \"x.py\", line 1", "42 items",
        " 2026-11-22 10:15:30 indented", "\t1643811426 indented", "Done at 2026-11-22 10:15:30",
        "Caused by: java.io.IOException", "[", "[]", "[INFO] x", "2026", "-1643811426",
        "\xC3\x9C" "bertragung 2026-11-22 10:15:30"}) {
    EXPECT_FALSE(parse(line, utc)) << line;
  }
}

TEST(TimestampUtf8, MessageBytesKeptIntact) {
  const LocalZone utc = load_zone("UTC");
  const std::string text = "Gr\xC3\xB6\xC3\x9F" "e \xC3\xBC" "berschritten \xE2\x80\x94 "
                           "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xE2\x9C\x93";
  auto iso = parse("2026-11-22 10:15:30,5 " + text, utc);
  ASSERT_TRUE(iso);
  EXPECT_EQ(iso->epoch_ms, kNov22_101530Utc_ms + 500);
  EXPECT_EQ(iso->message, text);
  auto epoch = parse("[1643811426] " + text, utc);
  ASSERT_TRUE(epoch);
  EXPECT_EQ(epoch->message, text);
  // A multi-byte character directly after the time is not a letter we know: the time
  // ends there, and the character stays whole in the message.
  auto attached = parse("Nov 22 10:15:30\xE2\x80\x94" "x", utc);
  ASSERT_TRUE(attached);
  EXPECT_EQ(attached->message, "\xE2\x80\x94" "x");
}

// --- daylight saving time, through the parser -----------------------------------------

TEST(TimestampDst, SpringForwardGapReadsAsNotYetMovedClock) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  // 02:30 never happened on 2026-03-29 in Berlin; with CET (+01:00) it is 01:30 UTC
  // (1774747800), which the moved clock shows as 03:30 CEST.
  EXPECT_EQ(parse("2026-03-29 02:30:00 x", berlin)->epoch_ms, 1774747800'000);
}

TEST(TimestampDst, FallBackLogKeepsItsOrder) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  // A log across 2026-10-25 03:00 CEST -> 02:00 CET, each line given the previous time.
  struct Line {
    std::string_view text;
    int64_t expected_ms;
  };
  const Line lines[] = {
      {"2026-10-25 02:10:00 a", 1792887000'000},  // 00:10 UTC, first pass (CEST)
      {"2026-10-25 02:50:00 b", 1792889400'000},  // 00:50 UTC, first pass
      {"2026-10-25 02:05:00 c", 1792890300'000},  // 01:05 UTC, second pass (CET)
      {"2026-10-25 02:30:00 d", 1792891800'000},  // 01:30 UTC, second pass
      {"2026-10-25 03:10:00 e", 1792894200'000},  // 02:10 UTC, unique again
  };
  std::optional<int64_t> previous_ms;
  for (const Line& line : lines) {
    auto t = parse(line.text, berlin, kNov22_0900Utc_ms, previous_ms);
    ASSERT_TRUE(t) << line.text;
    EXPECT_EQ(t->epoch_ms, line.expected_ms) << line.text;
    previous_ms = t->epoch_ms;
  }
}

TEST(TimestampDst, FallBackWithoutPreviousIsTheFirstPass) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  // 02:30 CEST = 00:30 UTC = 1792888200.
  EXPECT_EQ(parse("2026-10-25 02:30:00 x", berlin)->epoch_ms, 1792888200'000);
  EXPECT_EQ(parse("Oct 25 02:30:00 x", berlin, 1792880000'000)->epoch_ms, 1792888200'000);
}

// --- LocalZone ------------------------------------------------------------------------

TEST(LocalZoneLoad, NamesAndOffsets) {
  EXPECT_EQ(load_zone("UTC").name(), "UTC");
  EXPECT_EQ(load_zone("Europe/Berlin").name(), "Europe/Berlin");
  EXPECT_EQ(load_zone("+01:00").name(), "+01:00");
  EXPECT_EQ(load_zone("+0100").name(), "+01:00");
  EXPECT_EQ(load_zone("+01").name(), "+01:00");
  EXPECT_EQ(load_zone("-0530").name(), "-05:30");
}

TEST(LocalZoneLoad, FixedOffsetConverts) {
  const cctz::civil_second nov22(2026, 11, 22, 10, 15, 30);
  // 10:15:30 at -05:30 = 15:45:30 UTC = 1795362330.
  EXPECT_EQ(load_zone("-0530").to_epoch_ms(nov22, 0, std::nullopt), 1795362330'000);
  // 10:15:30 at +01:00 = 09:15:30 UTC = 1795338930.
  EXPECT_EQ(load_zone("+01").to_epoch_ms(nov22, 42, std::nullopt), 1795338930'042);
  EXPECT_EQ(load_zone("UTC").to_epoch_ms(nov22, 999, std::nullopt), kNov22_101530Utc_ms + 999);
}

TEST(LocalZoneLoad, UnknownNameIsAnError) {
  auto mars = LocalZone::load("Mars/Base");
  ASSERT_FALSE(mars);
  const char* tzdir = std::getenv("TZDIR");
  const std::string dir = tzdir != nullptr && *tzdir != '\0' ? tzdir : "/usr/share/zoneinfo";
  EXPECT_EQ(mars.error().message,
            "unknown time zone 'Mars/Base': not in the tz database (" + dir + ")");

  // A directory of the database is not a zone.
  auto europe = LocalZone::load("Europe");
  ASSERT_FALSE(europe);
  EXPECT_NE(europe.error().message.find("'Europe'"), std::string::npos);
}

TEST(LocalZoneLoad, BadOffsetsAndEmptyName) {
  for (std::string_view name : {"+1", "+25:00", "+01:60", "+01:0", "+01:00:00", "-", "+0100x"}) {
    auto zone = LocalZone::load(name);
    ASSERT_FALSE(zone) << name;
    EXPECT_NE(zone.error().message.find("'" + std::string(name) + "'"), std::string::npos)
        << zone.error().message;
    EXPECT_EQ(zone.error().message.find('\n'), std::string::npos);
  }
  auto empty = LocalZone::load("");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
}

TEST(LocalZoneDst, GapUsesTheOffsetBeforeTheTransition) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  const cctz::civil_second gap(2026, 3, 29, 2, 30, 0);
  EXPECT_EQ(berlin.to_epoch_ms(gap, 0, std::nullopt), 1774747800'000);
  // The previous line does not change a gap's reading.
  EXPECT_EQ(berlin.to_epoch_ms(gap, 0, 1774749000'000), 1774747800'000);
}

TEST(LocalZoneDst, RepeatedHourPicksTheEarliestNotBeforePrevious) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  const cctz::civil_second repeated(2026, 10, 25, 2, 30, 0);
  const int64_t first_ms = 1792888200'000;   // 00:30 UTC, CEST
  const int64_t second_ms = 1792891800'000;  // 01:30 UTC, CET
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 0, std::nullopt), first_ms);
  // Previous line before the first pass: the first pass.
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 0, first_ms - 60'000), first_ms);
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 0, first_ms), first_ms);
  // Previous line after the first pass (02:50 CEST): the second.
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 0, 1792889400'000), second_ms);
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 250, first_ms + 251), second_ms + 250);
  // Previous line after both: still the later one, the nearer to a log running forward.
  EXPECT_EQ(berlin.to_epoch_ms(repeated, 0, second_ms + 60'000), second_ms);
}

TEST(LocalZoneDst, UniqueTimesIgnorePrevious) {
  const LocalZone berlin = load_zone("Europe/Berlin");
  const cctz::civil_second summer(2026, 7, 15, 12, 0, 0);
  EXPECT_EQ(berlin.to_epoch_ms(summer, 0, 1784109600'000 + 3'600'000), 1784109600'000);
}

}  // namespace
}  // namespace canopy::logs
