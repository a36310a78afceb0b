// Per-server secrets: the /metrics token and the live control's token. 128 random bits
// from getrandom, in hex, compared in constant time.
#pragma once

#include <string>

#include "common/result.h"

namespace canopy::web {

// A fresh token; `purpose` names it in the error ("the /metrics token").
Result<std::string> random_token(const std::string& purpose);

// Compares in time that does not depend on where they differ: a guess must not learn
// the token's first characters from how fast it is refused.
bool same_secret(const std::string& given, const std::string& secret);

// Whether an Authorization header is "Bearer SECRET".
bool bearer_carries(const std::string& authorization, const std::string& secret);

}  // namespace canopy::web
