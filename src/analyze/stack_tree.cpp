#include "analyze/stack_tree.h"

namespace canopy::analyze {

StackTree::StackTree() { nodes_.push_back({"all", -1}); }

int32_t StackTree::add(const std::vector<std::string>& functions) {
  int32_t node = 0;
  for (const std::string& name : functions) {
    auto [at, made] = child_of_.try_emplace({node, name}, static_cast<int32_t>(nodes_.size()));
    if (made) {
      nodes_.push_back({name, node});
    }
    node = at->second;
  }
  return node;
}

std::vector<int64_t> StackTree::totals(const std::vector<int64_t>& self) const {
  std::vector<int64_t> total(self.begin(), self.end());
  total.resize(nodes_.size(), 0);
  // Children come after their parents: one pass from the last node back adds each
  // finished total to its parent.
  for (size_t i = nodes_.size(); i-- > 1;) {
    total[static_cast<size_t>(nodes_[i].parent)] += total[i];
  }
  return total;
}

std::vector<std::vector<int32_t>> StackTree::children() const {
  std::vector<std::vector<int32_t>> out(nodes_.size());
  for (size_t i = 1; i < nodes_.size(); ++i) {
    out[static_cast<size_t>(nodes_[i].parent)].push_back(static_cast<int32_t>(i));
  }
  return out;
}

}  // namespace canopy::analyze
