#include "web/secret_token.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/text.h"

namespace canopy::web {

constexpr size_t kTokenBytes = 16;  // 128 bits: not to be guessed

Result<std::string> random_token(const std::string& purpose) {
  unsigned char bytes[kTokenBytes];
  size_t filled = 0;
  while (filled < sizeof bytes) {
    ssize_t got = ::getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Error{"cannot make " + purpose + ": getrandom: " + std::strerror(errno)};
    }
    filled += static_cast<size_t>(got);
  }
  return hex_of(bytes, sizeof bytes);
}

bool same_secret(const std::string& given, const std::string& secret) {
  if (given.size() != secret.size()) {
    return false;
  }
  unsigned char differ = 0;
  for (size_t i = 0; i < secret.size(); ++i) {
    differ |= static_cast<unsigned char>(given[i] ^ secret[i]);
  }
  return differ == 0;
}

bool bearer_carries(const std::string& authorization, const std::string& secret) {
  constexpr std::string_view kBearer = "Bearer ";
  return authorization.size() > kBearer.size() && authorization.starts_with(kBearer) &&
         same_secret(authorization.substr(kBearer.size()), secret);
}

}  // namespace canopy::web
