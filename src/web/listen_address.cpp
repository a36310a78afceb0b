#include "web/listen_address.h"

#include <arpa/inet.h>

#include "common/text.h"

namespace canopy::web {

bool is_loopback_address(const std::string& address) {
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6{};
  return inet_pton(AF_INET6, address.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string reachable_warning(const std::string& who, const std::string& address, const std::string& exposes) {
  if (is_loopback_address(address)) {
    return "";
  }
  return "warning: " + who + " listens on " + address +
         ", so other machines can reach it; it answers only requests with the token in the URL below, and " + exposes;
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
  ListenAddress parsed;
  std::string port_text = text;
  if (size_t colon = text.rfind(':'); colon != std::string::npos) {
    std::string address = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (address.size() >= 2 && address.front() == '[' && address.back() == ']') {
      address = address.substr(1, address.size() - 2);
      in6_addr v6{};
      if (inet_pton(AF_INET6, address.c_str(), &v6) != 1) {
        return Error{"'" + address + "' is not an IPv6 address"};
      }
    } else if (!address.empty()) {
      in_addr v4{};
      if (inet_pton(AF_INET, address.c_str(), &v4) != 1) {
        return Error{"'" + address + "' is not an IPv4 address (write an IPv6 one in brackets: [::1]:PORT)"};
      }
    }
    if (!address.empty()) {
      parsed.address = address;
    }
  }
  auto port = parse_int<int>(port_text);
  if (!port || *port < 0 || *port > 65535) {
    return Error{"the port '" + port_text + "' is not a number from 0 to 65535 (ADDR:PORT, :PORT or PORT)"};
  }
  parsed.port = *port;
  return parsed;
}

}  // namespace canopy::web
