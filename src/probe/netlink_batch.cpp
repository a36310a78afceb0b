#include "probe/netlink_batch.h"

#include <cerrno>

namespace canopy::probe {

NetlinkBatchReceiver::NetlinkBatchReceiver(size_t datagrams_per_call, size_t datagram_bytes)
    : datagram_bytes_(NLMSG_ALIGN(datagram_bytes)),
      buffer_(datagrams_per_call * datagram_bytes_),
      slots_(datagrams_per_call),
      headers_(datagrams_per_call) {}

int64_t NetlinkBatchReceiver::receive(int fd, const std::function<void(const nlmsghdr&)>& on_message) {
  int64_t overflows = 0;
  for (;;) {
    for (size_t i = 0; i < headers_.size(); ++i) {
      slots_[i] = {buffer_.data() + i * datagram_bytes_, datagram_bytes_};
      headers_[i] = {};
      headers_[i].msg_hdr.msg_iov = &slots_[i];
      headers_[i].msg_hdr.msg_iovlen = 1;
    }
    int received = ::recvmmsg(fd, headers_.data(), static_cast<unsigned>(headers_.size()), MSG_DONTWAIT, nullptr);
    if (received < 0) {
      if (errno == EINTR) {
        continue;
      }
      if (errno == ENOBUFS) {
        ++overflows;  // some messages are gone; the rest still come
        continue;
      }
      return overflows;  // EAGAIN: nothing more queued
    }
    for (int i = 0; i < received; ++i) {
      const mmsghdr& datagram = headers_[static_cast<size_t>(i)];
      if (datagram.msg_hdr.msg_flags & MSG_TRUNC) {
        continue;  // cut short, larger than any message its sender makes: not parsed
      }
      auto remaining = static_cast<int>(datagram.msg_len);
      for (auto* header = static_cast<const nlmsghdr*>(slots_[static_cast<size_t>(i)].iov_base);
           NLMSG_OK(header, remaining); header = NLMSG_NEXT(header, remaining)) {
        on_message(*header);
      }
    }
    if (static_cast<size_t>(received) < headers_.size()) {
      // The kernel stops a batch at the first empty read. An error after some
      // messages (an overflow) is kept for the next call: the socket reads as ready.
      return overflows;
    }
  }
}

}  // namespace canopy::probe
