#include "probe/task_exits.h"

#include <linux/acct.h>
#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace canopy::probe {
namespace {

// As for the process events: a build's exits come in bursts.
constexpr int kRecordsReceiveBufferBytes = 16 << 20;

// The CPUs the kernel may run tasks on ("0-1"): registering for all of them is what
// "every exit" takes, and the kernel refuses a mask that names a CPU it cannot have.
std::string possible_cpus(int64_t cpu_count) {
  std::ifstream file("/sys/devices/system/cpu/possible");
  std::string list;
  if (std::getline(file, list) && !list.empty()) {
    return list;
  }
  return "0-" + std::to_string(std::max<int64_t>(cpu_count, 1) - 1);
}

std::string why_no_exit_records(int nl_error) {
  if (nl_error == -NLE_PERM) {
    return "not permitted (needs root or CAP_NET_ADMIN)";
  }
  if (nl_error == -NLE_OBJ_NOTFOUND) {
    return "the kernel has no taskstats (CONFIG_TASKSTATS)";
  }
  return nl_geterror(nl_error);
}

TaskExit task_exit_from(const taskstats& stats) {
  TaskExit exit;
  exit.tid = static_cast<pid_t>(stats.ac_pid);
  exit.tgid = stats.ac_tgid != 0 ? static_cast<pid_t>(stats.ac_tgid) : exit.tid;  // 0 before version 11
  exit.name.assign(stats.ac_comm, strnlen(stats.ac_comm, sizeof stats.ac_comm));
  exit.forked_without_exec = (stats.ac_flag & AFORK) != 0;
  exit.wait_status = static_cast<int>(stats.ac_exitcode);
  exit.peak_rss_bytes = static_cast<int64_t>(stats.hiwater_rss) * 1024;
  // ac_utime and ac_stime count whole timer ticks: a process that lived 5 ms mostly
  // shows 0. cpu_run_virtual_total is the scheduler's exact runtime; split it in the
  // ticks' proportion, as /proc/PID/stat does (cputime_adjust), all user without ticks.
  auto user_ticks = static_cast<double>(stats.ac_utime);
  auto system_ticks = static_cast<double>(stats.ac_stime);
  auto runtime_ns = static_cast<int64_t>(stats.cpu_run_virtual_total);
  if (runtime_ns > 0) {
    double system_share = user_ticks + system_ticks > 0 ? system_ticks / (user_ticks + system_ticks) : 0.0;
    exit.cpu_system_ns = static_cast<int64_t>(static_cast<double>(runtime_ns) * system_share);
    exit.cpu_user_ns = runtime_ns - exit.cpu_system_ns;
  } else {
    exit.cpu_user_ns = static_cast<int64_t>(stats.ac_utime) * 1000;
    exit.cpu_system_ns = static_cast<int64_t>(stats.ac_stime) * 1000;
    exit.cpu_from_ticks = true;
  }
  exit.minor_faults = static_cast<int64_t>(stats.ac_minflt);
  exit.major_faults = static_cast<int64_t>(stats.ac_majflt);
  exit.read_bytes = static_cast<int64_t>(stats.read_char);
  exit.write_bytes = static_cast<int64_t>(stats.write_char);
  exit.disk_read_bytes = static_cast<int64_t>(stats.read_bytes);
  exit.disk_write_bytes = static_cast<int64_t>(stats.write_bytes);
  return exit;
}

// The taskstats nested in an AGGR_PID or AGGR_TGID attribute, if it holds one.
std::optional<taskstats> stats_in(nlattr* aggregate) {
  nlattr* nested[TASKSTATS_TYPE_MAX + 1];
  if (!aggregate || nla_parse_nested(nested, TASKSTATS_TYPE_MAX, aggregate, nullptr) < 0 ||
      !nested[TASKSTATS_TYPE_STATS]) {
    return std::nullopt;
  }
  // The kernel's struct may be older (shorter) or newer than ours: fields are only
  // ever appended, so copy what both have.
  taskstats stats{};
  std::memcpy(&stats, nla_data(nested[TASKSTATS_TYPE_STATS]),
              std::min<size_t>(static_cast<size_t>(nla_len(nested[TASKSTATS_TYPE_STATS])), sizeof stats));
  return stats;
}

}  // namespace

struct TaskExitListener::Socket {
  nl_sock* sock = nullptr;
  int family = 0;
  ~Socket() {
    if (sock) {
      nl_socket_free(sock);
    }
  }
};

namespace {

// TASKSTATS_CMD_GET with a (de)register cpumask attribute, acknowledged.
int send_cpumask(nl_sock* sock, int family, int attribute, const std::string& mask) {
  nl_msg* message = nlmsg_alloc();
  if (!message) {
    return -NLE_NOMEM;
  }
  if (!genlmsg_put(message, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, TASKSTATS_CMD_GET, TASKSTATS_VERSION) ||
      nla_put_string(message, attribute, mask.c_str()) < 0) {
    nlmsg_free(message);
    return -NLE_NOMEM;
  }
  return nl_send_sync(sock, message);  // frees the message
}

}  // namespace

Result<TaskExitListener> TaskExitListener::open(int64_t cpu_count) {
  auto socket = std::make_unique<Socket>();
  socket->sock = nl_socket_alloc();
  if (!socket->sock) {
    return Error{"taskstats: out of memory"};
  }
  if (int rc = genl_connect(socket->sock); rc < 0) {
    return Error{"taskstats: " + why_no_exit_records(rc)};
  }
  socket->family = genl_ctrl_resolve(socket->sock, TASKSTATS_GENL_NAME);
  if (socket->family < 0) {
    return Error{"taskstats: " + why_no_exit_records(socket->family)};
  }
  int size = kRecordsReceiveBufferBytes;
  int fd = nl_socket_get_fd(socket->sock);
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  std::string cpumask = possible_cpus(cpu_count);
  if (int rc = send_cpumask(socket->sock, socket->family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpumask); rc < 0) {
    return Error{"taskstats: " + why_no_exit_records(rc)};
  }
  // Exit records arrive unasked, with sequence number 0.
  nl_socket_disable_seq_check(socket->sock);
  nl_socket_set_nonblocking(socket->sock);
  return TaskExitListener(std::move(socket), std::move(cpumask));
}

TaskExitListener::TaskExitListener(std::unique_ptr<Socket> socket, std::string cpumask)
    : socket_(std::move(socket)), cpumask_(std::move(cpumask)) {}

TaskExitListener::TaskExitListener(TaskExitListener&&) noexcept = default;

TaskExitListener::~TaskExitListener() {
  if (socket_ && socket_->sock) {
    // The kernel would drop us at its next failed send anyway; say so at once. The
    // wait for its answer reads records still queued, and libnl drops them.
    send_cpumask(socket_->sock, socket_->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpumask_);
  }
}

int TaskExitListener::fd() const { return nl_socket_get_fd(socket_->sock); }

int TaskExitListener::family() const { return socket_->family; }

void TaskExitListener::drain(const std::function<void(const TaskExit&)>& on_exit) {
  lost_ += receiver_.receive(fd(), [&](const nlmsghdr& message) {
    auto* header = const_cast<nlmsghdr*>(&message);  // libnl's parsers take it so, and only read
    if (header->nlmsg_type != socket_->family) {
      return;  // an error or an acknowledgement
    }
    auto* generic = static_cast<genlmsghdr*>(nlmsg_data(header));
    if (generic->cmd != TASKSTATS_CMD_NEW) {
      return;
    }
    nlattr* attributes[TASKSTATS_TYPE_MAX + 1];
    if (genlmsg_parse(header, 0, attributes, TASKSTATS_TYPE_MAX, nullptr) < 0) {
      return;
    }
    auto stats = stats_in(attributes[TASKSTATS_TYPE_AGGR_PID]);
    if (!stats) {
      return;
    }
    TaskExit exit = task_exit_from(*stats);
    // The thread group's aggregate, in the last thread's message, holds only the delay
    // accounting's figures (fill_tgid_exit), among them every thread's runtime.
    if (auto group = stats_in(attributes[TASKSTATS_TYPE_AGGR_TGID]); group && group->cpu_run_virtual_total > 0) {
      exit.group_cpu_ns = static_cast<int64_t>(group->cpu_run_virtual_total);
    }
    on_exit(exit);
  });
}

}  // namespace canopy::probe
