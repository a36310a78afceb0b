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
};

class HeapStackNames {
 public:
  explicit HeapStackNames(const store::HeapProfile& profile);

  // The stack's frames, innermost first, inlined ones expanded, at most `most` of them.
  std::vector<NamedFrame> frames(int64_t stack_id, size_t most);

 private:
  // Every recorded frame is a return address: the innermost too, the return into the
  // code that called the allocation function.
  const std::vector<NamedFrame>& names_of(int64_t frame_id);

  Symbolizer symbolizer_;
  std::unordered_map<int64_t, const store::HeapStackRow*> stacks_;
  std::unordered_map<int64_t, const store::HeapFrameRow*> frames_;
  std::unordered_map<int64_t, const store::HeapModuleRow*> modules_;
  std::unordered_map<int64_t, std::vector<NamedFrame>> named_;  // by frame id
};

}  // namespace canopy::symbolize
