// analyze/: stacks of function names merged by their common prefixes (outermost frame
// first), the shape a flame graph draws. Each distinct path is one node; a stack's
// figure (samples, bytes) is added at its leaf, and a node's total is its own figure
// plus its descendants'. Built once per recording and profile, so that any selection
// of samples or snapshot totals is summed over nodes without naming frames again.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace canopy::analyze {

class StackTree {
 public:
  struct Node {
    std::string name;
    int32_t parent = -1;  // -1 for the root
  };

  StackTree();  // node 0: the root, "all"

  // The node of the path of `functions`, outermost first, made where missing; the root
  // for an empty stack. A child is always made after its parent: its index is higher.
  int32_t add(const std::vector<std::string>& functions);

  const std::vector<Node>& nodes() const { return nodes_; }

  // Each node's total from figures added at nodes (`self`, one per node): its own plus
  // its descendants'.
  std::vector<int64_t> totals(const std::vector<int64_t>& self) const;

  // Each node's children, in order of creation.
  std::vector<std::vector<int32_t>> children() const;

 private:
  std::vector<Node> nodes_;
  std::map<std::pair<int32_t, std::string>, int32_t> child_of_;
};

}  // namespace canopy::analyze
