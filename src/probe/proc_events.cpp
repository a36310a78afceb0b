#include "probe/proc_events.h"

// clang-format off: linux/connector.h needs the types linux/netlink.h brings.
#include <linux/netlink.h>
#include <linux/connector.h>
#include <linux/cn_proc.h>
// clang-format on
#include <linux/filter.h>
#include <arpa/inet.h>
#include <sys/poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <string>

namespace canopy::probe {
namespace {

// A build forks thousands of processes a second, and the machine around it more: a
// large buffer rides out a recorder busy with a tick. The kernel caps it at rmem_max
// unless we may force it (SO_RCVBUFFORCE, with CAP_NET_ADMIN).
constexpr int kEventsReceiveBufferBytes = 16 << 20;
// How long open() waits for the event of its test fork: it comes within microseconds
// when the connector works at all.
constexpr int kTestTimeoutMs = 500;

Status subscribe(int fd, proc_cn_mcast_op op) {
  // nlmsghdr, then cn_msg (whose data[] is flexible), then the operation.
  alignas(nlmsghdr) char request[NLMSG_SPACE(sizeof(cn_msg) + sizeof(proc_cn_mcast_op))] = {};
  auto* header = reinterpret_cast<nlmsghdr*>(request);
  header->nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_cn_mcast_op));
  header->nlmsg_type = NLMSG_DONE;
  header->nlmsg_pid = static_cast<uint32_t>(::getpid());
  auto* message = static_cast<cn_msg*>(NLMSG_DATA(header));
  message->id.idx = CN_IDX_PROC;
  message->id.val = CN_VAL_PROC;
  message->len = sizeof(proc_cn_mcast_op);
  std::memcpy(message->data, &op, sizeof op);
  if (::send(fd, request, header->nlmsg_len, 0) != static_cast<ssize_t>(header->nlmsg_len)) {
    return Error{std::string("cannot subscribe to process events: ") + std::strerror(errno)};
  }
  return Ok{};
}

std::string why_no_process_events(int error) {
  if (error == EPERM || error == EACCES) {
    return "not permitted (this kernel wants root or CAP_NET_ADMIN)";
  }
  if (error == EPROTONOSUPPORT || error == ENOENT) {
    return "the kernel has no process connector (CONFIG_PROC_EVENTS)";
  }
  return std::strerror(error);
}

// Where a proc_event's field is in the message: after nlmsghdr and cn_msg.
constexpr uint32_t event_field(size_t offset) {
  return static_cast<uint32_t>(NLMSG_LENGTH(0) + offsetof(cn_msg, data) + offset);
}

}  // namespace

Status ProcEventSocket::drop_unused_kinds() {
  // Classic BPF loads a word in network byte order: the constants are swapped alike.
  constexpr uint32_t kWhat = event_field(offsetof(proc_event, what));
  constexpr uint32_t kChildPid = event_field(offsetof(proc_event, event_data.fork.child_pid));
  constexpr uint32_t kChildTgid = event_field(offsetof(proc_event, event_data.fork.child_tgid));
  sock_filter program[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kWhat),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(proc_event::PROC_EVENT_EXEC), 7, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(proc_event::PROC_EVENT_EXIT), 6, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htonl(proc_event::PROC_EVENT_FORK), 0, 6),
      // A fork: of a process, not a thread (child pid = child tgid).
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kChildPid),
      BPF_STMT(BPF_ST, 0),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kChildTgid),
      BPF_STMT(BPF_LDX | BPF_W | BPF_MEM, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffff),  // keep the whole message
      BPF_STMT(BPF_RET | BPF_K, 0),           // drop it
  };
  sock_fprog fprog{static_cast<unsigned short>(std::size(program)), program};
  if (::setsockopt(fd_.get(), SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof fprog) != 0) {
    return Error{std::string("process events: cannot attach a filter: ") + std::strerror(errno)};
  }
  return Ok{};
}

Result<ProcEventSocket> ProcEventSocket::open() {
  ScopedFd fd(::socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR));
  if (!fd) {
    return Error{"process events: " + why_no_process_events(errno)};
  }
  sockaddr_nl address{};
  address.nl_family = AF_NETLINK;
  address.nl_groups = CN_IDX_PROC;
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    return Error{"process events: " + why_no_process_events(errno)};
  }
  int size = kEventsReceiveBufferBytes;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  RETURN_IF_ERROR(subscribe(fd.get(), PROC_CN_MCAST_LISTEN));
  // The kernel ignores a subscription from outside its initial namespaces (a
  // container) without an error: the socket would just stay silent. So start a child
  // that exits at once and wait for its fork event. vfork: the child borrows our
  // memory until it exits, so no page tables are copied and freed for it.
  pid_t child = ::vfork();
  if (child < 0) {
    return Error{std::string("process events: cannot test them: vfork: ") + std::strerror(errno)};
  }
  if (child == 0) {
    ::_exit(0);
  }
  while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
  ProcEventSocket events(std::move(fd));
  bool heard = false;
  for (int waited_ms = 0; !heard && waited_ms < kTestTimeoutMs; ++waited_ms) {
    events.drain([&](const ProcEvent& e) { heard = heard || (e.kind == ProcEvent::Kind::kFork && e.pid == child); });
    if (!heard) {
      pollfd ready{events.fd(), POLLIN, 0};
      ::poll(&ready, 1, 1);
    }
  }
  if (!heard) {
    return Error{"process events: subscribed, but the kernel sends none here (a container's namespace?)"};
  }
  return events;
}

void ProcEventSocket::drain(const std::function<void(const ProcEvent&)>& on_event) {
  lost_ += receiver_.receive(fd_.get(), [&](const nlmsghdr& header) {
    ++received_;
    if (header.nlmsg_type == NLMSG_ERROR || header.nlmsg_type == NLMSG_NOOP) {
      return;
    }
    const auto* message = static_cast<const cn_msg*>(NLMSG_DATA(&header));
    if (message->id.idx != CN_IDX_PROC || message->len < sizeof(proc_event) - sizeof(proc_event::event_data)) {
      return;
    }
    proc_event event{};
    std::memcpy(&event, message->data, std::min<size_t>(message->len, sizeof event));
    ProcEvent out;
    out.monotonic_ns = event.timestamp_ns;
    switch (event.what) {
      case proc_event::PROC_EVENT_FORK:
        if (event.event_data.fork.child_pid != event.event_data.fork.child_tgid) {
          return;  // a new thread
        }
        out.kind = ProcEvent::Kind::kFork;
        out.pid = event.event_data.fork.child_tgid;
        out.parent = event.event_data.fork.parent_tgid;
        break;
      case proc_event::PROC_EVENT_EXEC:
        out.kind = ProcEvent::Kind::kExec;
        out.pid = event.event_data.exec.process_tgid;
        break;
      case proc_event::PROC_EVENT_EXIT:
        ++exits_heard_;
        if (event.event_data.exit.process_pid != event.event_data.exit.process_tgid) {
          return;  // a thread other than the leader
        }
        out.kind = ProcEvent::Kind::kExit;
        out.pid = event.event_data.exit.process_tgid;
        out.wait_status = static_cast<int>(event.event_data.exit.exit_code);
        break;
      default:
        return;
    }
    on_event(out);
  });
}

}  // namespace canopy::probe
