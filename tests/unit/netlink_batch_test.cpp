// NetlinkBatchReceiver on a real datagram socket (a UNIX socketpair: recvmmsg works the
// same on any datagram socket, and a test cannot make the kernel send netlink events on
// cue). What matters is that every queued message comes out, once and in order, across
// batches, and that the drain ends when the queue is empty.
#include "probe/netlink_batch.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "common/scoped_resource.h"

namespace canopy::probe {
namespace {

struct SocketPair {
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    sender = ScopedFd(fds[0]);
    receiver = ScopedFd(fds[1]);
  }
  ScopedFd sender;
  ScopedFd receiver;
};

// One datagram holding netlink messages whose type is each of `types`, each with a
// 4-byte payload.
void send_datagram(int fd, const std::vector<uint16_t>& types, size_t pad_to = 0) {
  std::vector<char> datagram;
  for (uint16_t type : types) {
    nlmsghdr header{};
    header.nlmsg_len = NLMSG_LENGTH(4);
    header.nlmsg_type = type;
    size_t at = datagram.size();
    datagram.resize(at + NLMSG_SPACE(4));
    std::memcpy(datagram.data() + at, &header, sizeof header);
  }
  if (datagram.size() < pad_to) {
    datagram.resize(pad_to);  // zeros: not a netlink message, so NLMSG_OK stops there
  }
  ASSERT_EQ(::send(fd, datagram.data(), datagram.size(), 0), static_cast<ssize_t>(datagram.size()));
}

std::vector<uint16_t> receive_types(NetlinkBatchReceiver& receiver, int fd) {
  std::vector<uint16_t> types;
  EXPECT_EQ(receiver.receive(fd, [&](const nlmsghdr& header) { types.push_back(header.nlmsg_type); }), 0);
  return types;
}

TEST(NetlinkBatch, EveryQueuedMessageComesOutOnceAndInOrderAcrossBatches) {
  SocketPair pair;
  NetlinkBatchReceiver receiver(4, 256);  // 10 datagrams: batches of 4, 4 and 2
  std::vector<uint16_t> sent;
  for (uint16_t i = 0; i < 10; ++i) {
    send_datagram(pair.sender.get(), {static_cast<uint16_t>(100 + i)});
    sent.push_back(static_cast<uint16_t>(100 + i));
  }
  EXPECT_EQ(receive_types(receiver, pair.receiver.get()), sent);
  EXPECT_TRUE(receive_types(receiver, pair.receiver.get()).empty()) << "the queue was drained";
}

TEST(NetlinkBatch, AFullLastBatchStillEndsWhenTheQueueIsEmpty) {
  SocketPair pair;
  NetlinkBatchReceiver receiver(4, 256);
  for (uint16_t i = 0; i < 8; ++i) {
    send_datagram(pair.sender.get(), {i});
  }
  EXPECT_EQ(receive_types(receiver, pair.receiver.get()).size(), 8u);
}

TEST(NetlinkBatch, SeveralMessagesInOneDatagramAreEachHandedOver) {
  SocketPair pair;
  NetlinkBatchReceiver receiver(4, 256);
  send_datagram(pair.sender.get(), {1, 2, 3});
  send_datagram(pair.sender.get(), {4});
  EXPECT_EQ(receive_types(receiver, pair.receiver.get()), (std::vector<uint16_t>{1, 2, 3, 4}));
}

TEST(NetlinkBatch, ADatagramLargerThanItsSlotIsSkippedNotMisread) {
  SocketPair pair;
  NetlinkBatchReceiver receiver(4, 64);
  send_datagram(pair.sender.get(), {1});
  send_datagram(pair.sender.get(), {2}, 200);  // cut short at 64 bytes: dropped
  send_datagram(pair.sender.get(), {3});
  EXPECT_EQ(receive_types(receiver, pair.receiver.get()), (std::vector<uint16_t>{1, 3}));
}

}  // namespace
}  // namespace canopy::probe
