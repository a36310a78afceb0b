// Where a server of canopy's listens, as the user names it: checked before anything
// starts, and told apart as loopback (this machine only) or not.
#pragma once

#include <string>

#include "common/result.h"

namespace canopy::web {

// The loopback address a server binds when the user names only a port.
inline constexpr const char* kLoopbackAddress = "127.0.0.1";

struct ListenAddress {
  std::string address = kLoopbackAddress;  // numeric IPv4 or IPv6, no brackets
  int port = 0;                            // 0: any free port
};

// "PORT", ":PORT", "ADDR:PORT" or "[IPV6]:PORT"; the address numeric, the port 0 to
// 65535. The error says what is wrong with `text`, without repeating it.
Result<ListenAddress> parse_listen_address(const std::string& text);

// 127.0.0.0/8 or ::1.
bool is_loopback_address(const std::string& address);

// What a server of a recording exposes, for reachable_warning.
inline constexpr const char* kRecordingExposes = "the recording holds command lines, which can hold secrets";

// What a server on `address` tells whoever reaches it, `exposes` (its recording's
// command lines, the tree's command names), is why a server off loopback answers only
// requests with its token. The warning that says so, naming the server (`who`:
// "--serve", "the viewer"); empty on loopback.
std::string reachable_warning(const std::string& who, const std::string& address, const std::string& exposes);

}  // namespace canopy::web
