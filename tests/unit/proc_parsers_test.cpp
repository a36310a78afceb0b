// The parsers on real /proc text captured from a Debian 12 machine (fixtures/proc/),
// and on the hostile names a process can give itself.
#include "probe/proc_parsers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace canopy::probe {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream file(std::string(CANOPY_FIXTURES) + "/proc/" + name, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

TEST(ParseStat, RealLine) {
  auto stat = parse_stat(fixture("stat_bash.txt"));
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 1169);
  EXPECT_EQ(stat->name, "bash");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1168);
  EXPECT_EQ(stat->minor_faults, 15358);
  EXPECT_EQ(stat->major_faults, 0);
  EXPECT_EQ(stat->user_ticks, 6);
  EXPECT_EQ(stat->system_ticks, 8);
  EXPECT_EQ(stat->threads, 1);
  EXPECT_EQ(stat->start_ticks, 4539);
  EXPECT_EQ(stat->vm_size_bytes, 5545984);
  EXPECT_EQ(stat->start_code, 94205729107968u);
  EXPECT_EQ(stat->start_stack, 140721516440032u);
  EXPECT_EQ(stat->flags & kStatFlagKernelThread, 0u);
}

TEST(ParseStat, AKernelThreadIsFlaggedSo) {
  auto stat = parse_stat(fixture("stat_kthreadd.txt"));
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->name, "kthreadd");
  EXPECT_NE(stat->flags & kStatFlagKernelThread, 0u);
}

TEST(ParseStat, NameWithSpacesParenthesesAndNewline) {
  // A process may name itself anything up to 15 bytes (prctl PR_SET_NAME).
  std::string line = fixture("stat_bash.txt");
  line.replace(line.find("(bash)"), 6, "(a) b\n(c) 9 9)");
  auto stat = parse_stat(line);
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->name, "a) b\n(c) 9 9");
  EXPECT_EQ(stat->ppid, 1168);
  EXPECT_EQ(stat->start_ticks, 4539);
}

TEST(ParseStat, RejectsTruncatedAndGarbage) {
  EXPECT_FALSE(parse_stat(""));
  EXPECT_FALSE(parse_stat("1169 (bash) S 1168 1169"));
  EXPECT_FALSE(parse_stat("not a stat line"));
  std::string line = fixture("stat_bash.txt");
  line.replace(line.find(" 4539 "), 6, " 45x9 ");
  EXPECT_FALSE(parse_stat(line));
}

TEST(ParseStat, ReadsUpToVsizeWhenTheLaterFieldsAreMissing) {
  // A line that ends at field 23 (vsize): the image's addresses are unknown (0), not an error.
  auto stat = parse_stat("7 (sh) R 1 7 7 0 -1 0 11 0 12 0 13 14 0 0 20 0 3 0 99 4096");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->state, 'R');
  EXPECT_EQ(stat->minor_faults, 11);
  EXPECT_EQ(stat->major_faults, 12);
  EXPECT_EQ(stat->user_ticks, 13);
  EXPECT_EQ(stat->system_ticks, 14);
  EXPECT_EQ(stat->threads, 3);
  EXPECT_EQ(stat->start_ticks, 99);
  EXPECT_EQ(stat->vm_size_bytes, 4096);
  EXPECT_EQ(stat->start_code, 0u);
  EXPECT_FALSE(parse_stat("7 (sh) RS 1 7 7 0 -1 0 11 0 12 0 13 14 0 0 20 0 3 0 99 4096"));  // a state is one letter
  EXPECT_FALSE(parse_stat("7 (sh) R 1 7 7 0 -1 0 11 0 12 0 13 14 0 0 20 0 3 0 99"));        // no vsize
  EXPECT_FALSE(parse_stat("7 (sh) R 1 7 7 0 -1 0 99999999999999999999 0 12 0 13 14 0 0 20 0 3 0 99 4096"));
}

TEST(ParseStatm, RealLine) {
  auto statm = parse_statm(fixture("statm_bash.txt"));
  ASSERT_TRUE(statm);
  EXPECT_EQ(statm->size_pages, 1354);
  EXPECT_EQ(statm->resident_pages, 1094);
  EXPECT_EQ(statm->shared_pages, 755);
  EXPECT_FALSE(parse_statm("12 x 3"));
}

TEST(ParseSchedstat, RealLine) {
  EXPECT_EQ(parse_schedstat_run_ns(fixture("schedstat_bash.txt")), 148729413);
  EXPECT_FALSE(parse_schedstat_run_ns(""));
}

TEST(ParseStatus, RealFile) {
  auto status = parse_status(fixture("status_bash.txt"));
  ASSERT_TRUE(status);
  EXPECT_EQ(status->rss_anon_bytes, 1356 * 1024);
  EXPECT_EQ(status->rss_file_bytes, 3020 * 1024);
  EXPECT_EQ(status->rss_shmem_bytes, 0);
  EXPECT_EQ(status->swap_bytes, 0);
  EXPECT_EQ(status->hwm_bytes, 4376 * 1024);
}

TEST(ParseStatus, KernelThreadHasNoMemory) {
  EXPECT_FALSE(parse_status(fixture("status_kthreadd.txt")));
}

TEST(ParseIo, RealFile) {
  auto io = parse_io(fixture("io_bash.txt"));
  ASSERT_TRUE(io);
  EXPECT_EQ(io->read_bytes, 1416496133);
  EXPECT_EQ(io->write_bytes, 665893554);
  EXPECT_EQ(io->disk_read_bytes, 196038656);
  EXPECT_EQ(io->disk_write_bytes, 519049216);  // not cancelled_write_bytes
}

TEST(ParseIo, LastLineWithoutNewlineAndShortLines) {
  auto io = parse_io("a\nrchar: 1\nwchar: 2\n\nread_bytes: 3\nwrite_bytes: 4");
  ASSERT_TRUE(io);
  EXPECT_EQ(io->read_bytes, 1);
  EXPECT_EQ(io->write_bytes, 2);
  EXPECT_EQ(io->disk_read_bytes, 3);
  EXPECT_EQ(io->disk_write_bytes, 4);
  EXPECT_EQ(parse_io("rchar: 9223372036854775807\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4")->read_bytes, INT64_MAX);
  EXPECT_FALSE(parse_io("rchar: 9223372036854775808\nwchar: 2\nread_bytes: 3\nwrite_bytes: 4"));  // past int64
  EXPECT_FALSE(parse_io("rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_bytes:"));    // no number
  EXPECT_FALSE(parse_io("rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_byte: 4"));   // a key cut short
  EXPECT_FALSE(parse_io("rchar: 1\nwchar: 2\nread_bytes: 3\nwrite_bytes_: 4"));  // nor a longer one
}

TEST(ParseSmapsRollup, RealFile) {
  auto rollup = parse_smaps_rollup(fixture("smaps_rollup_bash.txt"));
  ASSERT_TRUE(rollup);
  EXPECT_EQ(rollup->pss_bytes, 2203 * 1024);
  EXPECT_EQ(rollup->uss_bytes, (568 + 352) * 1024);  // Pss_Anon etc. must not match "Pss"
}

TEST(ParseMeminfo, RealFile) {
  auto meminfo = parse_meminfo(fixture("meminfo.txt"));
  ASSERT_TRUE(meminfo);
  EXPECT_EQ(meminfo->mem_total_bytes, int64_t{24684084} * 1024);
  EXPECT_EQ(meminfo->mem_available_bytes, int64_t{24365724} * 1024);
  EXPECT_EQ(meminfo->swap_total_bytes, 0);
  EXPECT_EQ(meminfo->swap_free_bytes, 0);
}

TEST(ParseVmstat, SumsWhatChangesMemoryOfProcessesThatDidNotRun) {
  // A real file with some counts set: the pgsteal_* lines (100 + 20 + 70 + 50),
  // pswpout 7, thp_collapse_alloc 3 and oom_kill 1 count; pgscan_kswapd (999),
  // pswpin (11) and thp_collapse_alloc_failed (5) do not.
  EXPECT_EQ(parse_vmstat_memory_moves(fixture("vmstat.txt")), 251);
  EXPECT_EQ(parse_vmstat_memory_moves("nr_free_pages 1\npgsteal_file 4"), 4);  // no final newline
  EXPECT_EQ(parse_vmstat_memory_moves("nr_free_pages 1\n"), std::nullopt);
}

TEST(ParseChildren, SpaceSeparatedWithTrailingSpace) {
  EXPECT_EQ(parse_children("1869 1870 "), (std::vector<pid_t>{1869, 1870}));
  EXPECT_TRUE(parse_children("").empty());
}

TEST(ParseCmdline, NulSeparated) {
  using namespace std::string_literals;
  EXPECT_EQ(parse_cmdline("make\0-j8\0all"s), (std::vector<std::string>{"make", "-j8", "all"}));
  EXPECT_EQ(parse_cmdline("a b\0\0c"s), (std::vector<std::string>{"a b", "", "c"}));
}

}  // namespace
}  // namespace canopy::probe
