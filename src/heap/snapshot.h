// A snapshot of the profile, sent as the recorder expects it: the loaded objects if
// they changed, the stacks not sent yet, the totals that changed, the survivors and
// the frees, then the header that closes it. The profile's lock is held only while
// copying out, never while sending.
#pragma once

#include "heap/channel.h"
#include "heap/wire_format.h"

namespace canopy::heap {

class SnapshotSender {
 public:
  bool init();  // maps its staging buffers
  // After a fork: the new connection has seen nothing, and the child's own totals
  // start from what it inherited alive.
  void restart_in_child();
  // Call with the channel's send_lock held.
  void send(Channel& channel, heap_wire::SnapshotReason reason);
  void send_modules(Channel& channel);
  void send_modules_if_changed(Channel& channel);

 private:
  void copy_out(heap_wire::SnapshotHeader& header);
  void send_stacks(Channel& channel, uint32_t up_to);

  unsigned char* stacks_staging_ = nullptr;
  heap_wire::StackTotals* totals_ = nullptr;
  uint32_t totals_count_ = 0;
  heap_wire::Survivor* survivors_ = nullptr;
  uint32_t survivors_count_ = 0;
  heap_wire::Freed* freed_ = nullptr;
  uint32_t freed_count_ = 0;
  uint32_t stacks_known_ = 0;  // stacks in the table when the totals were copied
  uint32_t stacks_sent_ = 0;
  unsigned long long modules_adds_sent_ = ~0ULL;  // nothing sent yet
  unsigned long long modules_subs_sent_ = ~0ULL;
};

}  // namespace canopy::heap
