#include "record/heap_profiling.h"

#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common/binary_directory.h"

namespace canopy::record {
namespace {

// As the viewer's module is found (web/web_module_loader.cpp): the override, beside
// the binary (the build tree), or PREFIX/lib/canopy/ of an install.
Result<std::string> heap_library_path() {
  std::string path;
  if (const char* override_path = std::getenv(kHeapLibraryVariable); override_path && *override_path) {
    path = override_path;
  } else {
    ASSIGN_OR_RETURN(std::string directory, binary_directory());
    std::string beside = directory + kHeapLibraryFile;
    std::string installed = directory + "../lib/canopy/" + kHeapLibraryFile;
    path = ::access(beside.c_str(), R_OK) == 0 ? beside : installed;
  }
  char resolved[PATH_MAX];
  if (!::realpath(path.c_str(), resolved) || ::access(resolved, R_OK) != 0) {
    return Error{std::string("--heap: cannot find the heap profiler ") + kHeapLibraryFile + " at '" + path +
                 "' (install canopy with it, or set " + kHeapLibraryVariable + " to its path)"};
  }
  std::string absolute = resolved;
  // LD_PRELOAD separates its entries with spaces and colons.
  if (absolute.find_first_of(" :") != std::string::npos) {
    return Error{"--heap: the heap profiler's path '" + absolute +
                 "' holds a space or a colon, which LD_PRELOAD cannot carry (install canopy elsewhere)"};
  }
  return absolute;
}

}  // namespace

HeapProfiling::HeapProfiling(HeapListener listener, std::string library, const RecordOptions& options)
    : listener_(std::move(listener)),
      library_(std::move(library)),
      rate_bytes_(options.heap_rate_bytes.value_or(kDefaultHeapRateBytes)),
      interval_ms_(options.heap_interval_ms),
      coverage_(library_, listener_.socket_path(), rate_bytes_) {}

Result<HeapProfiling> HeapProfiling::prepare(const RecordOptions& options, const std::string& directory) {
  ASSIGN_OR_RETURN(auto library, heap_library_path());
  ASSIGN_OR_RETURN(auto listener, HeapListener::create(directory));
  return HeapProfiling(std::move(listener), std::move(library), options);
}

std::vector<std::string> HeapProfiling::environment() const {
  std::string preload = library_;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing) {
    preload += std::string(":") + existing;
  }
  std::vector<std::string> variables = {
      "LD_PRELOAD=" + preload,
      std::string(heap_wire::kSocketVariable) + "=" + listener_.socket_path(),
      std::string(heap_wire::kRateVariable) + "=" + std::to_string(rate_bytes_),
      std::string(heap_wire::kIntervalVariable) + "=" + std::to_string(interval_ms_),
  };
  // CPython takes its objects of 512 bytes or less from arenas it maps itself
  // (pymalloc), where no malloc hook sees them: a Python program's leak of small objects
  // would go unseen. Its own switch sends them through malloc, as valgrind's and
  // heaptrack's users are told to set. One the user set stays.
  if (std::getenv("PYTHONMALLOC") == nullptr) {
    variables.emplace_back("PYTHONMALLOC=malloc");
  }
  return variables;
}

void HeapProfiling::start_ingest(store::Writer& writer, ProfileStacks& stacks, const RecordingClock& clock,
                                 HeapIngest::ProcessIdOf process_id_of) {
  ingest_.emplace(writer, stacks, clock, std::move(process_id_of), coverage_);
}

HeapListener::Handler HeapProfiling::handler() {
  return {
      [this](int connection, pid_t pid) { ingest_->opened(connection, pid); },
      [this](int connection, heap_wire::MessageType type, std::span<const unsigned char> payload) {
        if (type == heap_wire::MessageType::kControl) {
          forward_control(connection, payload);
          return false;  // answered: the client's connection ends
        }
        return ingest_->message(connection, type, payload);
      },
      [this](int connection) { ingest_->closed(connection); },
  };
}

void HeapProfiling::forward_control(int connection, std::span<const unsigned char> payload) {
  heap_wire::Control control;
  if (payload.size() != sizeof control) {
    return;
  }
  std::memcpy(&control, payload.data(), sizeof control);
  bool known_command = control.command == heap_wire::kCommandDump || control.command == heap_wire::kCommandSamplingOn ||
                       control.command == heap_wire::kCommandSamplingOff;
  if (control.magic != heap_wire::kMagic || control.version != heap_wire::kVersion || !known_command) {
    return;
  }
  bool sent = listener_.send_command(control.pid, static_cast<char>(control.command));
  listener_.reply(connection, sent ? heap_wire::kControlDone : heap_wire::kControlNotConnected);
}

void HeapProfiling::read_available() {
  if (ingest_) {
    listener_.read_available(handler());
  }
}

void HeapProfiling::finish() {
  if (ingest_) {
    listener_.close_all(handler());
  }
}

void HeapProfiling::write_unprofiled(store::Writer& writer) const {
  for (const store::HeapUnprofiledRow& row : coverage_.unprofiled()) {
    writer.add_heap_unprofiled(row);
  }
}

}  // namespace canopy::record
