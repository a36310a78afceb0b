// The page's profiler switch against a real recording (record/profiler_switch.h behind
// cli/recorder_live_control.h, served by the viewer's server): a process started with
// --heap=off has its heap sampling turned on and off with POSTs carrying the server's
// token, and the recording shows samples from exactly the allocations made while it
// was on. The memory map of the same process shows the memory it allocated.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/recorder_live_control.h"
#include "integration/harness.h"
#include "integration/served_view.h"
#include "probe/running_tree.h"
#include "record/profiler_switch.h"

namespace canopy::testing {
namespace {

using nlohmann::json;

// Each round mallocs this much in 4099-byte blocks; at the default rate of one sample
// per 512 KiB, 128 samples are expected of a round sampled. Fewer than 32 has
// probability below 1e-20 (Poisson, mean 128).
constexpr int64_t kRoundMib = 64;
constexpr int64_t kFewestSamplesOfARound = 32;

std::string comm_of(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(file, name);
  return name;
}

// The requested snapshots of the image of `pid`, in time order, once there are `count`.
std::vector<store::HeapSnapshotRow> requested_snapshots(const store::Reader& reader, int64_t pid) {
  std::vector<store::HeapSnapshotRow> found;
  auto profile = reader.heap_profile();
  if (!profile) {
    return found;
  }
  for (const auto& image : profile->images) {
    if (image.pid != pid) {
      continue;
    }
    for (const auto& snapshot : profile->snapshots) {
      if (snapshot.image_id == image.id && snapshot.reason == "requested") {
        found.push_back(snapshot);
      }
    }
  }
  return found;
}

class ProfilerSwitchPage {
 public:
  ProfilerSwitchPage(const std::string& served_recording, web::LiveControl& control) {
    web::ServerOptions options;
    options.control = &control;
    auto served = ServedView::start(served_recording, options);
    EXPECT_TRUE(served) << served.error().message;
    served_ = std::move(*served);
    auto answer = served_->client().Get("/api/control");
    EXPECT_TRUE(answer && answer->status == 200);
    token_ = json::parse(answer->body)["token"];
  }
  json states() const {
    auto answer = served_->client().Get("/api/control");
    EXPECT_TRUE(answer && answer->status == 200);
    return json::parse(answer->body)["processes"];
  }
  // The POST as the page makes it; the answer's status and body.
  std::pair<int, json> post(const std::string& path) const {
    auto answer = served_->client().Post(path, {{"Origin", served_->origin()}, {"X-Canopy-Token", token_}}, "",
                                         "text/plain");
    EXPECT_TRUE(answer);
    return {answer ? answer->status : 0, answer ? json::parse(answer->body) : json()};
  }

 private:
  std::unique_ptr<ServedView> served_;
  std::string token_;
};

// A recording made with --heap=off of a workload that allocates a round of kRoundMib
// at each SIGUSR1, and three rounds with its heap sampling switched by `command`
// ("dump", "on" or "off", from the page or the command line).
class ProfilerSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    recorder_.emplace(std::vector<std::string>{kCanopy, "record", "-q", "--heap=off", "-o", path_, "--", kWorkload,
                                               "allocate-on-signal", std::to_string(kRoundMib)});
    ASSERT_TRUE(recorder_->wait_for_output("ready")) << recorder_->error_output();
    std::vector<pid_t> tree = probe::read_descendants(recorder_->pid());
    ASSERT_EQ(tree.size(), 1u) << "the workload alone";
    workload_ = tree[0];
  }

  // Off as started: round 1 allocates unseen. The profiler obeys the commands of its
  // connection in order, so a dump asked after "on" or "off" is taken once it is in
  // force; but a command returns once the recorder has passed it on, not once the
  // profiler has obeyed it, so each next round waits for that dump in the recording.
  void switch_three_rounds(const std::function<void(const std::string&)>& command,
                           const std::function<void()>& after_on = [] {}) {
    round(1);
    command("dump");
    command("on");
    command("dump");
    auto before_on = wait_for_snapshots(2);
    after_on();
    round(2);
    command("dump");
    command("off");
    command("dump");  // after "off": every sample of round 2 is in it
    wait_for_snapshots(4);
    round(3);
    command("dump");
    auto all = wait_for_snapshots(5);

    ASSERT_EQ(all.size(), 5u);
    EXPECT_EQ(before_on[0].samples, 0) << "sampling off: round 1 unseen";
    EXPECT_EQ(all[1].samples, 0);
    EXPECT_GE(all[2].samples - all[1].samples, kFewestSamplesOfARound) << "sampling on: round 2 sampled";
    EXPECT_EQ(all[4].samples, all[3].samples) << "sampling off again: round 3 unseen";
  }

  void end() {
    ASSERT_EQ(::kill(workload_, SIGTERM), 0);
    Finished finished = recorder_->wait();
    EXPECT_EQ(finished.exit_status, 0) << finished.err;
  }

  TempDir dir_;
  std::string path_ = dir_.file("live.canopy");
  std::optional<Started> recorder_;
  pid_t workload_ = 0;

 private:
  void round(int n) {
    ASSERT_EQ(::kill(workload_, SIGUSR1), 0);
    ASSERT_TRUE(recorder_->wait_for_output("allocated " + std::to_string(n)));
  }
  std::vector<store::HeapSnapshotRow> wait_for_snapshots(size_t count) {
    std::vector<store::HeapSnapshotRow> found;
    EXPECT_TRUE(wait_for_recording(path_, [&](const store::Reader& reader) {
      found = requested_snapshots(reader, workload_);
      return found.size() >= count;
    })) << "requested snapshots: " << found.size() << " of " << count;
    return found;
  }
};

TEST_F(ProfilerSwitch, HeapSamplingTurnedOnAndOffFromThePage) {
  std::string served = dir_.file("served.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", served, kWorkload, "exit", "0"}).exit_status, 0);
  record::ProfilerSwitch profilers({.live_processes =
                                        [&] {
                                          std::vector<record::TreeProcess> live;
                                          for (pid_t pid : probe::read_descendants(recorder_->pid())) {
                                            live.push_back({pid, comm_of(pid)});
                                          }
                                          return live;
                                        },
                                    .heap_profile = true,
                                    .heap_sampling_at_start = false,
                                    .cpu_profile = false});
  cli::RecorderLiveControl control(profilers);
  ProfilerSwitchPage page(served, control);
  const std::string pid = std::to_string(workload_);

  json states = page.states();
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0]["pid"], workload_);
  EXPECT_EQ(states[0]["heap"], "off");
  EXPECT_EQ(states[0]["cpu"], "off");

  switch_three_rounds(
      [&](const std::string& command) {
        auto [status, body] = command == "dump" ? page.post("/api/control/heap-snapshot?pid=" + pid)
                                                : page.post("/api/control/heap-sampling?pid=" + pid +
                                                            "&on=" + (command == "on" ? "1" : "0"));
        EXPECT_EQ(status, 200) << command << ": " << body.dump();
      },
      [&] { EXPECT_EQ(page.states()[0]["heap"], "on"); });
  EXPECT_EQ(page.states()[0]["heap"], "off");

  // The memory map: three rounds of 64 MiB, resident (each block's first byte is
  // written, and 4099-byte blocks leave no page untouched) in the heap or anonymous
  // mappings.
  auto [map_status, map] = page.post("/api/control/memory-map?pid=" + pid);
  ASSERT_EQ(map_status, 200) << map.dump();
  int64_t private_bytes = 0;
  for (const json& group : map["groups"]) {
    if (group["kind"] == "heap" || group["kind"] == "anonymous") {
      private_bytes += group["anonymous_bytes"].get<int64_t>();
    }
  }
  EXPECT_GE(private_bytes, mib(3 * kRoundMib));

  // A PID outside the tree (this test's own) is refused in one line.
  auto [refused_status, refused] = page.post("/api/control/heap-sampling?pid=" + std::to_string(::getpid()) + "&on=1");
  EXPECT_EQ(refused_status, 409);
  EXPECT_EQ(refused["error"], "process " + std::to_string(::getpid()) + " is not a live process of the recorded tree");
  end();
}

// The same switch from a terminal: `canopy heap on|off|dump PID`, sent through the
// recorder's socket that the process's environment names.
TEST_F(ProfilerSwitch, HeapSamplingTurnedOnAndOffFromTheCommandLine) {
  switch_three_rounds([&](const std::string& command) {
    auto result = run({kCanopy, "heap", command, std::to_string(workload_)});
    EXPECT_EQ(result.exit_status, 0) << command << ": " << result.err;
    EXPECT_EQ(result.err, "");
  });

  // A process outside any recorded tree (this test), a verb without its PID.
  const std::string self = std::to_string(::getpid());
  auto outside = run({kCanopy, "heap", "on", self});
  EXPECT_EQ(outside.exit_status, 1);
  EXPECT_EQ(outside.err, "canopy: cannot reach the heap profiler of PID " + self +
                             ": it is not in a tree recorded with 'canopy record --heap' (no CANOPY_HEAP_SOCKET in "
                             "its environment, or it is another user's process)\n");
  auto no_pid = run({kCanopy, "heap", "dump"});
  EXPECT_EQ(no_pid.exit_status, 2);  // a mistake in the command line
  EXPECT_EQ(no_pid.err, "canopy: heap dump needs the PID of a process of a tree being recorded with --heap "
                        "(canopy heap dump PID)\n");
  end();
}

}  // namespace
}  // namespace canopy::testing
