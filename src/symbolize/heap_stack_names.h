// The heap profile's stacks as people read them: each frame of a recorded stack named
// (function, file:line, the frames inlined into it), from the recording's modules and
// frames. Each frame is resolved once; a frame whose object cannot give names says
// which object, and why.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/heap_rows.h"
#include "symbolize/symbolizer.h"

namespace canopy::symbolize {

struct NamedFrame {
  std::string function;  // "?" when nothing names it
  std::string location;  // "file.cpp:42", the object's name, or "" when unknown
  bool inlined = false;
  std::string file = "";  // the source file as the debug information names it; "" when unknown
  int line = 0;           // 0 when unknown
  bool jit = false;       // code a JIT generated, named (if at all) by its perf map
  // A frame nothing names in an object that was read: its address in the object
  // ("0x4a1f3", for addr2line -e on a build with symbols), which tells such frames apart.
  std::string address_in_object = "";
};

// The frame as a flame graph or a list of functions names it: its function, or for a
// frame nothing names "?" and its object ("? (stress-ng)"), so that unnamed code in two
// objects does not read as one function.
inline std::string display_name(const NamedFrame& frame) {
  return frame.function == "?" && !frame.location.empty() ? "? (" + frame.location + ")" : frame.function;
}

class HeapStackNames {
 public:
  explicit HeapStackNames(const store::HeapProfile& profile);

  // The stack's frames, innermost first, inlined ones expanded, at most `most` of them.
  std::vector<NamedFrame> frames(int64_t stack_id, size_t most);

  // One recorded frame (heap_frame's id): the functions inlined at it, innermost
  // first, then the function it is in; at least one entry. Every recorded frame is a
  // return address, the innermost too (the return into the code that called the
  // allocation function), so the call's line is named, not the next one's.
  const std::vector<NamedFrame>& names_of(int64_t frame_id);

  // Whether the module's file gives names (heap_module's id).
  ModuleState module_state(int64_t module_id);

  // The profile's stacks that read alike, every frame down to the last (functions, the
  // frames inlined into them, files and lines; for a frame nothing names, its object
  // and address): each one after the first of its kind -> the first's id, for
  // analyze::heap_histories. Names every frame of the profile.
  std::unordered_map<int64_t, int64_t> stacks_that_read_alike();

 private:
  Symbolizer symbolizer_;
  std::unordered_map<int64_t, const store::HeapStackRow*> stacks_;
  std::unordered_map<int64_t, const store::HeapFrameRow*> frames_;
  std::unordered_map<int64_t, const store::HeapModuleRow*> modules_;
  std::unordered_map<int64_t, std::vector<NamedFrame>> named_;  // by frame id
  const store::HeapProfile& profile_;
};

}  // namespace canopy::symbolize
