#include "web/view_follow.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>

namespace canopy::web {
namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Runs `pass` when `complete` or when its pacing allows; whether it ran.
template <typename Pass>
Result<bool> paced(bool complete, auto& pacing, const Pass& pass) {
  const int64_t start = steady_ms();
  if (!complete && !pacing.due(start)) {
    return false;
  }
  RETURN_IF_ERROR(pass());
  pacing.took(start, steady_ms());
  return true;
}

}  // namespace

bool recorder_running(const store::RecordingMeta& meta) {
  if (!meta.recorder_pid || *meta.recorder_pid <= 0 || !meta.host) {
    return false;
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || *meta.host != host) {
    return false;
  }
  const auto pid = static_cast<pid_t>(*meta.recorder_pid);
  if (pid == ::getpid()) {
    return true;  // record --serve: this process writes it (and a poll reads no /proc)
  }
  if (::kill(pid, 0) != 0 && errno != EPERM) {
    return false;
  }
  // A PID can be reused: by a canopy, it is as good a guess as any (the file's lack of
  // an end then shows as soon as that canopy ends).
  std::string name;
  std::getline(std::ifstream("/proc/" + std::to_string(pid) + "/comm"), name);
  return name == "canopy";
}

Status ViewFollower::update(ViewData& data, const store::Reader& reader, bool complete) {
  // Every process row, or those that can have changed (timeline.h): a long build's
  // thousands of ended ones are read again only as often as the other passes.
  using ProcessRows = analyze::Timeline::ProcessRows;
  ASSIGN_OR_RETURN(bool all_rows, paced(complete, process_rows_, [&] {
                     return data.timeline.extend(reader, complete, ProcessRows::kAll);
                   }));
  if (!all_rows) {
    RETURN_IF_ERROR(data.timeline.extend(reader, complete, ProcessRows::kChanging));
  }
  RETURN_IF_ERROR(paced(complete, subtrees_, [&]() -> Status {
    if (data.timeline.subtrees_stale()) {
      data.timeline.update_subtrees();
    }
    return Ok{};
  }));
  ASSIGN_OR_RETURN(bool events_fresh, paced(complete, events_, [&]() -> Status {
    ASSIGN_OR_RETURN(data.events, load_event_list(reader, data.timeline));
    return Ok{};
  }));
  ASSIGN_OR_RETURN(bool profiles_fresh, paced(complete, profiles_, [&]() -> Status {
    ASSIGN_OR_RETURN(data.profiles, load_profile_view(reader, data.timeline.processes()));
    return Ok{};
  }));
  data.live = !complete;
  RETURN_IF_ERROR(update_recording_json(data, reader));
  nlohmann::json stale = nlohmann::json::array();
  if (!all_rows) {
    stale.push_back("processes");
  }
  if (data.timeline.subtrees_stale()) {
    stale.push_back("subtrees");
  }
  if (!events_fresh) {
    stale.push_back("events");
  }
  if (!profiles_fresh) {
    stale.push_back("profiles");
  }
  data.recording["stale"] = std::move(stale);
  return Ok{};
}

}  // namespace canopy::web
