// The tree filter's two socket filters (see tree_filter.h), run by the kernel for each
// message before it is queued on the socket. Built with clang's BPF target and embedded
// in canopy as a libbpf skeleton (tree_filter.skel.h).
//
// A socket filter returns how many bytes of the message to keep: all, or none.
// clang-format off: linux/connector.h needs the types linux/netlink.h brings.
#include <linux/bpf.h>
#include <linux/netlink.h>
#include <linux/connector.h>
#include <linux/cn_proc.h>
// clang-format on
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <stdbool.h>
#include <stddef.h>

#include <bpf/bpf_helpers.h>

#define KEEP_ALL -1
#define DROP 0

// The tree's PIDs: bit PID % 64 of word PID / 64. Shared with the recorder (mmap), which
// sizes it to kernel.pid_max before loading.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_MMAPABLE);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} tree_pids SEC(".maps");

// What the filters dropped so far, and the taskstats generic netlink family (its id on
// this kernel), set by the recorder before it attaches the exit records' filter.
__u64 events_dropped = 0;
__u64 exit_records_dropped = 0;
__u32 taskstats_family = 0;

// Whether `pid` is in the set: true also for a PID past the bitmap, which the filter
// cannot judge, so lets pass.
static __always_inline bool in_tree(__u32 pid) {
  __u32 key = pid / 64;
  __u64* word = bpf_map_lookup_elem(&tree_pids, &key);
  return !word || (*word >> (pid % 64)) & 1;
}

static __always_inline int drop(__u64* counter) {
  __sync_fetch_and_add(counter, 1);
  return DROP;
}

// A fork passes when its parent is in the set, and the child's bit follows its
// parent's, at once, before the child can run: set, or cleared for a PID reused outside
// the tree.
static __always_inline int judge_fork(__u32 parent, __u32 child) {
  bool member = in_tree(parent);
  __u32 key = child / 64;
  __u64* word = bpf_map_lookup_elem(&tree_pids, &key);
  if (!word) {
    return KEEP_ALL;  // past the bitmap
  }
  __u64 bit = 1ULL << (child % 64);
  if (member) {
    __sync_fetch_and_or(word, bit);
    return KEEP_ALL;
  }
  __sync_fetch_and_and(word, ~bit);
  return drop(&events_dropped);
}

// The process connector's message: nlmsghdr, cn_msg, then proc_event. The program
// copies the event's head, up to the first 16 bytes of its data (a fork's four PIDs).
#define EVENT_AT (NLMSG_LENGTH(0) + offsetof(struct cn_msg, data))
#define EVENT_BYTES (offsetof(struct proc_event, event_data) + 16)
_Static_assert(offsetof(struct proc_event, event_data.fork.child_tgid) + 4 <= EVENT_BYTES, "fork's PIDs");
_Static_assert(offsetof(struct proc_event, event_data.exit.process_tgid) + 4 <= EVENT_BYTES, "exit's PID");
_Static_assert(offsetof(struct proc_event, event_data.exec.process_tgid) + 4 <= EVENT_BYTES, "exec's PID");
// An exec's and an exit's process are at the same place.
_Static_assert(offsetof(struct proc_event, event_data.exec.process_tgid) ==
                   offsetof(struct proc_event, event_data.exit.process_tgid),
               "exec and exit alike");

SEC("socket")
int process_events(struct __sk_buff* message) {
  struct proc_event event;
  if (bpf_skb_load_bytes(message, EVENT_AT, &event, EVENT_BYTES) != 0) {
    return KEEP_ALL;  // not an event as we know them: the recorder decides
  }
  switch (event.what) {
    case PROC_EVENT_FORK:
      if (event.event_data.fork.child_pid != event.event_data.fork.child_tgid) {
        return drop(&events_dropped);  // a new thread of its process
      }
      return judge_fork(event.event_data.fork.parent_tgid, event.event_data.fork.child_tgid);
    case PROC_EVENT_EXEC:
    case PROC_EVENT_EXIT:
      // An exec or an exit (of any thread: its exit record precedes it) is the set's
      // process's, by its thread group.
      return in_tree(event.event_data.exec.process_tgid) ? KEEP_ALL : drop(&events_dropped);
    default:
      return drop(&events_dropped);  // uid, gid, sid, comm, ptrace, coredump: never read
  }
}

// A taskstats exit record: nlmsghdr, genlmsghdr, then the attribute AGGR_PID holding
// PID (the thread) and STATS (struct taskstats, whose ac_tgid is the process), with a
// NULL attribute before STATS where the machine needs it 8-byte aligned
// (nla_reserve_64bit). The program copies the head, up to STATS's header.
struct exit_record_head {
  struct nlmsghdr message;
  struct genlmsghdr generic;
  struct nlattr aggregate;  // AGGR_PID
  struct nlattr pid_header;
  __u32 pid;
  struct nlattr after_pid;      // STATS, or NULL padding
  struct nlattr after_padding;  // STATS after the padding
};
_Static_assert(offsetof(struct exit_record_head, generic) == NLMSG_HDRLEN, "genlmsghdr");
_Static_assert(offsetof(struct exit_record_head, aggregate) == NLMSG_HDRLEN + GENL_HDRLEN, "AGGR_PID");
_Static_assert(offsetof(struct exit_record_head, pid) == offsetof(struct exit_record_head, pid_header) + NLA_HDRLEN,
               "PID's value");
_Static_assert(offsetof(struct exit_record_head, after_pid) == offsetof(struct exit_record_head, pid) + 4,
               "after PID");
_Static_assert(offsetof(struct exit_record_head, after_padding) ==
                   offsetof(struct exit_record_head, after_pid) + NLA_HDRLEN,
               "after the padding");

static __always_inline __u16 attribute_type(const struct nlattr* attribute) {
  return attribute->nla_type & NLA_TYPE_MASK;  // without its flags
}

SEC("socket")
int exit_records(struct __sk_buff* message) {
  struct exit_record_head head;
  if (bpf_skb_load_bytes(message, 0, &head, sizeof head) != 0) {
    return KEEP_ALL;  // shorter: an acknowledgement, an error
  }
  if (head.message.nlmsg_type != taskstats_family || head.generic.cmd != TASKSTATS_CMD_NEW ||
      attribute_type(&head.aggregate) != TASKSTATS_TYPE_AGGR_PID ||
      attribute_type(&head.pid_header) != TASKSTATS_TYPE_PID) {
    return KEEP_ALL;
  }
  __u32 stats_at = offsetof(struct exit_record_head, after_pid);
  const struct nlattr* stats = &head.after_pid;
  if (attribute_type(stats) == TASKSTATS_TYPE_NULL) {
    stats_at = offsetof(struct exit_record_head, after_padding);
    stats = &head.after_padding;
  }
  if (attribute_type(stats) != TASKSTATS_TYPE_STATS) {
    return KEEP_ALL;
  }
  __u32 tgid = 0;
  if (bpf_skb_load_bytes(message, stats_at + NLA_HDRLEN + offsetof(struct taskstats, ac_tgid), &tgid,
                         sizeof tgid) != 0) {
    return KEEP_ALL;
  }
  // ac_tgid is 0 before taskstats version 11: judge by the thread.
  return in_tree(tgid != 0 ? tgid : head.pid) ? KEEP_ALL : drop(&exit_records_dropped);
}

// No license section: none of the helpers above is GPL-only, and the project states no
// license for this file to claim.
