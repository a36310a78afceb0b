// Reading what a program started with (program_start.h): the parsers, and the two
// reads of ProcessFiles that use them. Neither file is kept open: each is read once
// per program, and most programs of a build live a few milliseconds.
#include "probe/program_start.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "probe/process_files.h"

namespace canopy::probe {
namespace {

template <typename Word>
std::optional<AuxvFields> parse_auxv_words(std::string_view bytes) {
  AuxvFields fields;
  fields.word_bits = static_cast<int>(sizeof(Word) * 8);
  bool page_size_seen = false;
  for (size_t at = 0; at + 2 * sizeof(Word) <= bytes.size(); at += 2 * sizeof(Word)) {
    Word type;
    Word value;
    std::memcpy(&type, bytes.data() + at, sizeof type);
    std::memcpy(&value, bytes.data() + at + sizeof type, sizeof value);
    if (type == AT_NULL) {
      break;
    }
    if (type == AT_PAGESZ) {
      page_size_seen = page_size_seen || (value >= 4096 && (value & (value - 1)) == 0);
    } else if (type == AT_BASE) {
      fields.interpreter_base = value;
    } else if (type == AT_SECURE) {
      fields.secure = value != 0;
    } else if (type == AT_EUID) {
      fields.effective_uid = value;
    }
  }
  return page_size_seen ? std::optional(fields) : std::nullopt;
}

Access access_of(int error) { return error == EACCES || error == EPERM ? Access::kDenied : Access::kGone; }

}  // namespace

std::optional<AuxvFields> parse_auxv(std::string_view bytes) {
  // Read as 64-bit pairs, a 32-bit vector's (6, 4096) is the type 4096 << 32 | 6: no
  // AT_PAGESZ. Read as 32-bit pairs, a 64-bit vector's types fall on values, and its
  // AT_PAGESZ on a (type, 0) half.
  if (auto wide = parse_auxv_words<uint64_t>(bytes)) {
    return wide;
  }
  return parse_auxv_words<uint32_t>(bytes);
}

EnvironmentScan::EnvironmentScan(std::span<const std::string_view> names) : names_(names), values_(names.size()) {}

void EnvironmentScan::entry(std::string_view text) {
  for (size_t i = 0; i < names_.size(); ++i) {
    std::string_view name = names_[i];
    if (!values_[i] && text.size() > name.size() && text.starts_with(name) && text[name.size()] == '=') {
      values_[i] = std::string(text.substr(name.size() + 1));
      ++found_;
      return;
    }
  }
}

bool EnvironmentScan::take(std::string_view bytes) {
  while (found_ < names_.size() && !bytes.empty()) {
    size_t end = bytes.find('\0');
    if (end == std::string_view::npos) {
      partial_.append(bytes);
      return true;
    }
    if (partial_.empty()) {
      entry(bytes.substr(0, end));
    } else {
      partial_.append(bytes.substr(0, end));
      entry(partial_);
      partial_.clear();
    }
    bytes.remove_prefix(end + 1);
  }
  return found_ < names_.size();
}

void EnvironmentScan::finish() {
  if (!partial_.empty() && found_ < names_.size()) {
    entry(partial_);
  }
  partial_.clear();
}

AuxvRead ProcessFiles::read_auxv() {
  ScopedFd fd(::openat(dir_.get(), "auxv", O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return {access_of(errno), {}};
  }
  // 2 KiB holds any architecture's vector (x86-64's is about 350 bytes).
  char bytes[2048];
  ssize_t n;
  while ((n = ::pread(fd.get(), bytes, sizeof bytes, 0)) < 0 && errno == EINTR) {
  }
  if (n < 0) {
    return {access_of(errno), {}};  // the kernel checks its access at the read
  }
  auto fields = parse_auxv(std::string_view(bytes, static_cast<size_t>(n)));
  // Empty: the process has no memory any more (a zombie, or one exiting).
  return fields ? AuxvRead{Access::kRead, *fields} : AuxvRead{Access::kGone, {}};
}

EnvironmentRead ProcessFiles::read_environment(std::span<const std::string_view> names) {
  ScopedFd fd(::openat(dir_.get(), "environ", O_RDONLY | O_CLOEXEC));
  if (!fd) {
    return {access_of(errno), {}};
  }
  EnvironmentScan scan(names);
  char bytes[4096];
  off_t offset = 0;
  for (;;) {
    ssize_t n = ::pread(fd.get(), bytes, sizeof bytes, offset);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return {access_of(errno), {}};
    }
    bool wanted = scan.take(std::string_view(bytes, static_cast<size_t>(n)));
    // The kernel fills a read up to its count unless the environment ends first.
    if (!wanted || n < static_cast<ssize_t>(sizeof bytes)) {
      break;
    }
    offset += n;
  }
  scan.finish();
  return {Access::kRead, std::move(scan).values()};
}

}  // namespace canopy::probe
