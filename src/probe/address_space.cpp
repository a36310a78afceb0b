#include "probe/address_space.h"

#include <linux/kcmp.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace canopy::probe {

AddressSpaces compare_address_spaces(pid_t a, pid_t b) {
  long order = ::syscall(SYS_kcmp, a, b, KCMP_VM, 0, 0);
  if (order < 0) {
    return AddressSpaces::kUnknown;
  }
  return order == 0 ? AddressSpaces::kShared : AddressSpaces::kSeparate;
}

}  // namespace canopy::probe
