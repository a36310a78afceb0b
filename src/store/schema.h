// The recording's tables (see recording.h for their invariants).
#pragma once

#include <string>

namespace canopy::store {

// CREATE TABLE statements for a new recording.
std::string schema_sql();

}  // namespace canopy::store
