#include "heap/stack_capture.h"

#include <fcntl.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <cstring>

#include "heap/code_ranges.h"
#include "heap/thread_state.h"

namespace canopy::heap {

heap_wire::UnwindMode unwind_mode = heap_wire::UnwindMode::kAuto;

namespace {

uintptr_t parse_hex(const char*& cursor, const char* end) {
  uintptr_t value = 0;
  for (; cursor < end; ++cursor) {
    char c = *cursor;
    int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) {
      break;
    }
    value = value * 16 + static_cast<uintptr_t>(digit);
  }
  return value;
}

// The end of the mapping that holds `address` (a thread's stack), from
// /proc/self/maps ("7ffd3a1e2000-7ffd3a203000 rw-p 00000000 00:00 0  [stack]"),
// read with plain system calls into a buffer on the stack; 0 if not found.
uintptr_t mapping_end(uintptr_t address) {
  int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return 0;
  }
  char buffer[4096];
  size_t held = 0;
  uintptr_t found = 0;
  for (;;) {
    ssize_t got = ::read(fd, buffer + held, sizeof buffer - held);
    if (got <= 0) {
      break;
    }
    held += static_cast<size_t>(got);
    const char* line = buffer;
    const char* end = buffer + held;
    for (const char* newline; (newline = static_cast<const char*>(std::memchr(line, '\n', end - line)));
         line = newline + 1) {
      const char* cursor = line;
      uintptr_t begin = parse_hex(cursor, newline);
      ++cursor;  // '-'
      uintptr_t finish = parse_hex(cursor, newline);
      if (address >= begin && address < finish) {
        found = finish;
        break;
      }
    }
    if (found) {
      break;
    }
    held = static_cast<size_t>(end - line);  // a line cut by the buffer's end
    std::memmove(buffer, line, held);
    if (held == sizeof buffer) {
      held = 0;  // no line is this long; skip it
    }
  }
  ::close(fd);
  return found;
}

#if defined(__x86_64__)
// Whether the bytes before `pc` are a call instruction, which a true return address
// always follows: E8 rel32, or FF /2 (an indirect call) in any of its addressing forms.
bool follows_call(uintptr_t pc) {
  if (!in_code(pc - 7)) {
    return false;
  }
  const auto* code = reinterpret_cast<const unsigned char*>(pc);
  if (code[-5] == 0xE8) {
    return true;
  }
  for (int length = 2; length <= 7; ++length) {
    if (code[-length] != 0xFF) {
      continue;
    }
    unsigned char modrm = code[-length + 1];
    if (((modrm >> 3) & 7) != 2) {
      continue;
    }
    int mod = modrm >> 6;
    int rm = modrm & 7;
    int expected = 2;
    if (mod == 0 && rm == 5) {
      expected = 6;  // [rip + disp32]
    } else if (mod == 1) {
      expected = 3;
    } else if (mod == 2) {
      expected = 6;
    }
    if (mod != 3 && rm == 4) {
      ++expected;  // SIB byte
      if (mod == 0 && (code[-length + 2] & 7) == 5) {
        expected += 4;  // SIB without base: disp32
      }
    }
    if (expected == length) {
      return true;
    }
  }
  return false;
}

// Walks the frame-pointer chain; false when it is not provably whole: a frame outside
// this thread's stack or not above the one before, a return address outside code or
// not after a call, or a chain that ends in anything but the outermost frame's null.
__attribute__((noinline)) bool walk_frame_pointers(CapturedStack& stack) {
  ThreadState& thread = thread_state;
  auto fp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (thread.stack_top == 0) {
    thread.stack_top = mapping_end(fp);
    if (thread.stack_top == 0) {
      return false;
    }
  }
  uintptr_t low = fp;
  stack.depth = 0;
  while (stack.depth < heap_wire::kMaxFrames) {
    // Never `fp + 16 > top`: code built without frame pointers may leave anything in
    // the register, -16 too, and the sum would wrap past the check.
    if (fp < low || fp % 8 != 0 || fp >= thread.stack_top || thread.stack_top - fp < 16) {
      return false;
    }
    const auto* frame = reinterpret_cast<const uintptr_t*>(fp);
    uintptr_t next = frame[0];
    uintptr_t pc = frame[1];
    if (!follows_call(pc)) {
      return false;
    }
    if (!in_own_code(pc)) {
      stack.pcs[stack.depth++] = pc;
    }
    if (next == 0) {
      return true;
    }
    low = fp + 16;
    fp = next;
  }
  return true;  // deeper than kept: the innermost frames are the ones that matter
}
#else
bool walk_frame_pointers(CapturedStack&) { return false; }
#endif

void unwind_with_libunwind(CapturedStack& stack) {
  void* pcs[heap_wire::kMaxFrames + 16];
  int got = unw_backtrace(pcs, heap_wire::kMaxFrames + 16);
  stack.depth = 0;
  int i = 0;
  while (i < got && in_own_code(reinterpret_cast<uintptr_t>(pcs[i]))) {
    ++i;
  }
  for (; i < got && stack.depth < heap_wire::kMaxFrames; ++i) {
    stack.pcs[stack.depth++] = reinterpret_cast<uintptr_t>(pcs[i]);
  }
}

}  // namespace

void capture_stack(CapturedStack& stack) {
  stack.by_frame_pointers = unwind_mode == heap_wire::UnwindMode::kAuto && walk_frame_pointers(stack);
  if (!stack.by_frame_pointers) {
    unwind_with_libunwind(stack);
  }
}

}  // namespace canopy::heap
