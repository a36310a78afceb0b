// Receives what a non-blocking netlink socket has queued, many datagrams per call
// (recvmmsg). Process events come three to a process, and a drain that reads them one
// call at a time also pays, at every wakeup, a last call that only says the queue is
// empty.
#pragma once

#include <linux/netlink.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace canopy::probe {

class NetlinkBatchReceiver {
 public:
  // `datagram_bytes`: the largest datagram the socket's sender makes.
  NetlinkBatchReceiver(size_t datagrams_per_call, size_t datagram_bytes);

  // Hands each netlink message queued on `fd` to `on_message`, without blocking. A
  // batch that comes back short means the queue was empty. Returns how many times the
  // kernel said it had dropped messages (ENOBUFS: its queue was full).
  int64_t receive(int fd, const std::function<void(const nlmsghdr&)>& on_message);

 private:
  size_t datagram_bytes_;
  std::vector<char> buffer_;
  std::vector<iovec> slots_;
  std::vector<mmsghdr> headers_;
};

}  // namespace canopy::probe
