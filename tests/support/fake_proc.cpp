#include "support/fake_proc.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace canopy::testing {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error("fake /proc: cannot " + what + " '" + path + "': " + std::strerror(errno));
}

// Truncates and writes through the same inode, so that an fd the sampler keeps open
// reads the new text. O_NOFOLLOW: never writes through a symlink (exe points at real
// programs).
void write_in_place(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail("write", path);
  }
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) {
    fail("write", path);
  }
}

// Empties a regular file before removing it: an fd kept open on it then reads
// nothing, where the kernel's would fail with ESRCH (see the header).
void empty_and_remove(const std::string& path) {
  if (int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
    ::close(fd);
  }
  fs::remove(path);
}

// A directory, its files emptied first (see empty_and_remove).
void empty_and_remove_all(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_symlink() && entry.is_regular_file()) {
      files.push_back(entry.path());
    }
  }
  for (const auto& file : files) {
    empty_and_remove(file);
  }
  fs::remove_all(dir);
}

bool zombie(const FakeProcess& p) { return p.state == 'Z' || p.state == 'X'; }

int64_t thread_count(const FakeProcess& p) { return 1 + static_cast<int64_t>(p.other_threads.size()); }

// As the kernel prints it, e.g. (a sleeping `sleep 30`):
//   10880 (sleep) S 10878 10878 8822 0 -1 4194304 128 0 0 0 0 0 0 0 20 0 1 0 2504114 2990080 391
//   18446744073709551615 93869604798464 93869604816393 140726906187120 0 0 0 0 6 0 1 0 0 17 0 0 0
//   0 0 0 93869604830480 93869604831744 93869871058944 140726906190282 140726906190291
//   140726906190291 140726906191849 0
// The name goes in as it is: the kernel does not escape it. A zombie's memory is gone,
// and with it its sizes and addresses: all 0.
std::string stat_text(const FakeProcess& p) {
  const bool gone = zombie(p);
  const uint64_t code = gone ? 0 : p.start_code;
  const uint64_t stack = gone ? 0 : p.start_stack;
  std::ostringstream s;
  s << p.pid << " (" << p.name << ") " << p.state << ' ' << p.ppid << ' ' << p.pid << ' ' << p.pid << " 0 -1 4194304 "
    << p.minor_faults << " 0 " << p.major_faults << " 0 " << p.user_ticks << ' ' << p.system_ticks << " 0 0 20 0 "
    << thread_count(p) << " 0 " << p.start_ticks << ' ' << (gone ? 0 : p.size_pages * kFakePageBytes) << ' '
    << (gone ? 0 : p.resident_pages) << " 18446744073709551615 " << code << ' ' << (code ? code + 17929 : 0) << ' '
    << stack << " 0 0 0 0 6 0 1 0 0 17 0 0 0 0 0 0";
  for (uint64_t offset : {32016, 33280, 266260480}) {  // start_data, end_data, start_brk
    s << ' ' << (code ? code + offset : 0);
  }
  for (uint64_t offset : {3162, 3171, 3171, 4729}) {  // arg_start, arg_end, env_start, env_end
    s << ' ' << (stack ? stack + offset : 0);
  }
  s << " 0\n";
  return s.str();
}

// "730 434 407 5 0 89 0": size resident shared text lib data dt. A zombie's are all 0.
std::string statm_text(const FakeProcess& p) {
  if (zombie(p)) {
    return "0 0 0 0 0 0 0\n";
  }
  std::ostringstream s;
  s << p.size_pages << ' ' << p.resident_pages << ' ' << p.shared_pages << " 5 0 89 0\n";
  return s.str();
}

// The lines of status up to Threads, with the memory lines a zombie no longer has.
// The kernel escapes a newline in the name here (not in stat).
std::string status_text(const FakeProcess& p, pid_t tid) {
  std::string name;
  for (char c : p.name) {
    name += c == '\n' ? "\\n" : c == '\\' ? "\\\\" : std::string(1, c);
  }
  const char* state = p.state == 'R' ? "R (running)"
                      : p.state == 'D' ? "D (disk sleep)"
                      : p.state == 'Z' ? "Z (zombie)"
                      : p.state == 'X' ? "X (dead)"
                                       : "S (sleeping)";
  std::ostringstream s;
  s << "Name:\t" << name << "\nUmask:\t0022\nState:\t" << state << "\nTgid:\t" << p.pid << "\nNgid:\t0\nPid:\t" << tid
    << "\nPPid:\t" << p.ppid << "\nTracerPid:\t0\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t" << (zombie(p) ? 0 : 256)
    << "\nGroups:\t \nNStgid:\t" << p.pid << "\nNSpid:\t" << p.pid << "\nNSpgid:\t" << p.pid << "\nNSsid:\t" << p.pid
    << "\nKthread:\t0\n";
  if (!zombie(p)) {
    const int64_t page_kb = kFakePageBytes / 1024;
    const int64_t rss_kb = p.resident_pages * page_kb;
    const int64_t hwm_kb = std::max(p.hwm_kb, rss_kb);
    const std::pair<const char*, int64_t> memory_lines[] = {
        {"VmPeak", std::max(p.size_pages * page_kb, hwm_kb)},
        {"VmSize", p.size_pages * page_kb},
        {"VmLck", 0},
        {"VmPin", 0},
        {"VmHWM", hwm_kb},
        {"VmRSS", rss_kb},
        {"RssAnon", (p.resident_pages - p.shared_pages) * page_kb},
        {"RssFile", p.shared_pages * page_kb - p.shmem_kb},
        {"RssShmem", p.shmem_kb},
        {"VmData", 224},
        {"VmStk", 132},
        {"VmExe", 20},
        {"VmLib", 1528},
        {"VmPTE", 52},
        {"VmSwap", p.swap_kb},
        {"HugetlbPages", 0},
    };
    for (const auto& [key, kb] : memory_lines) {
      s << key << ":\t" << std::setw(8) << kb << " kB\n";
    }
    s << "CoreDumping:\t0\nTHP_enabled:\t1\n";
  }
  s << "Threads:\t" << thread_count(p) << "\nSigQ:\t0/96364\n";
  return s.str();
}

std::string io_text(const FakeProcess& p) {
  std::ostringstream s;
  s << "rchar: " << p.rchar << "\nwchar: " << p.wchar << "\nsyscr: 10\nsyscw: 0\nread_bytes: " << p.read_bytes
    << "\nwrite_bytes: " << p.write_bytes << "\ncancelled_write_bytes: 0\n";
  return s.str();
}

// "1869 1870 ": each PID followed by a space.
std::string children_text(const std::vector<pid_t>& children) {
  std::string text;
  for (pid_t child : children) {
    text += std::to_string(child) + ' ';
  }
  return text;
}

// NUL after each argument; a zombie's (and a kernel thread's) is empty.
std::string cmdline_text(const FakeProcess& p) {
  std::string text;
  for (const auto& arg : zombie(p) ? std::vector<std::string>{} : p.cmdline) {
    text += arg;
    text += '\0';
  }
  return text;
}

// task/TID of one thread of `process`: its memory files and the children it forked.
void write_thread(const std::string& task, pid_t tid, const FakeProcess& process, const std::vector<pid_t>& children) {
  const std::string dir = task + "/" + std::to_string(tid);
  fs::create_directories(dir);
  write_in_place(dir + "/statm", statm_text(process));
  write_in_place(dir + "/status", status_text(process, tid));
  write_in_place(dir + "/children", children_text(children));
}

}  // namespace

void become_zombie(FakeProcess& p) {
  p.state = 'Z';
  p.run_ns += 100'000;
}

void exec(FakeProcess& p, const std::string& name, const std::string& exe, const std::vector<std::string>& cmdline) {
  p.name = name;
  p.exe = exe;
  p.cmdline = cmdline;
  p.start_code += 0x20000;
  p.start_stack -= 0x3000;
  p.run_ns += 1'000'000;
}

FakeProc::FakeProc() { write_machine(FakeMachine{}); }

probe::HostInfo FakeProc::host() {
  probe::HostInfo host;
  host.hostname = "fake";
  host.kernel = "6.1.0-fake";
  host.machine = "x86_64";
  host.cpu_count = 2;
  host.page_size_bytes = kFakePageBytes;
  host.clock_ticks_per_second = kFakeClockTicksPerSecond;
  host.boot_time_ms = 0;
  host.timezone = "UTC";
  return host;
}

void FakeProc::write_machine(const FakeMachine& m) {
  std::ostringstream meminfo;
  meminfo << "MemTotal:       " << m.mem_total_kb << " kB\nMemFree:         1016544 kB\nMemAvailable:   "
          << m.mem_available_kb << " kB\nBuffers:          212340 kB\nCached:          4812020 kB\nSwapCached:     "
          << "       0 kB\nActive:          2811496 kB\nInactive:        3583012 kB\nSwapTotal:      " << m.swap_total_kb
          << " kB\nSwapFree:       " << m.swap_free_kb << " kB\nDirty:               412 kB\n";
  write_in_place(root() + "/meminfo", meminfo.str());
  std::ostringstream vmstat;
  vmstat << "nr_free_pages 254136\nnr_anon_pages 311245\npgfault 62574548442\npgmajfault 15472187\npgsteal_kswapd "
         << m.pgsteal_kswapd << "\npgsteal_direct 5652\npswpin 0\npswpout 0\noom_kill 0\nthp_collapse_alloc 118\n";
  write_in_place(root() + "/vmstat", vmstat.str());
}

void FakeProc::write(const FakeProcess& p) {
  const std::string dir = dir_of(p.pid);
  const std::string task = dir + "/task";
  fs::create_directories(dir);
  write_in_place(dir + "/stat", stat_text(p));
  write_in_place(dir + "/statm", statm_text(p));
  write_in_place(dir + "/status", status_text(p, p.pid));
  write_in_place(dir + "/io", io_text(p));
  write_in_place(dir + "/schedstat", std::to_string(p.run_ns) + " 3022601 2\n");
  write_in_place(dir + "/cmdline", cmdline_text(p));
  write_in_place(dir + "/comm", p.name + "\n");
  fs::remove(dir + "/exe");
  if (!zombie(p) && !p.exe.empty()) {
    fs::create_symlink(p.exe, dir + "/exe");
  }
  // The leader's task files are its own: a zombie leader has no memory, even while
  // other threads run on (after pthread_exit). Those threads see the process's memory,
  // which they share.
  write_thread(task, p.pid, p, zombie(p) ? std::vector<pid_t>{} : p.children);
  FakeProcess group = p;
  group.state = 'S';
  std::vector<std::string> thread_dirs = {std::to_string(p.pid)};
  for (const FakeThread& thread : p.other_threads) {
    thread_dirs.push_back(std::to_string(thread.tid));
    write_thread(task, thread.tid, group, thread.children);
  }
  std::vector<std::string> ended;  // threads no longer in the process
  for (const auto& entry : fs::directory_iterator(task)) {
    if (std::find(thread_dirs.begin(), thread_dirs.end(), entry.path().filename().string()) == thread_dirs.end()) {
      ended.push_back(entry.path());
    }
  }
  for (const auto& dir : ended) {
    empty_and_remove_all(dir);
  }
}

void FakeProc::vanish(pid_t pid) { empty_and_remove_all(dir_of(pid)); }

void FakeProc::reuse_pid(const FakeProcess& process) {
  vanish(process.pid);
  write(process);
}

void FakeProc::fail_reads(pid_t pid, const std::string& file) { empty_and_remove(dir_of(pid) + "/" + file); }

}  // namespace canopy::testing
