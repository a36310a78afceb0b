// report/: a diff of two recordings for people (terminal text, 100 columns) and
// scripts (JSON, every figure in raw units).
#pragma once

#include <cstddef>
#include <string>

#include "analyze/diff.h"

namespace canopy::report {

// At most `max_rows` rows in each list (the memory ranking, the CPU ranking, only in
// A, only in B), each list saying how many it left out.
std::string diff_text(const analyze::Diff& diff, const std::string& path_a, const std::string& path_b,
                      size_t max_rows);

// Every pair and every unmatched process, in the text's memory order.
std::string diff_json(const analyze::Diff& diff, const std::string& path_a, const std::string& path_b);

}  // namespace canopy::report
