// The vDSO: the small shared object the kernel maps into every process for calls such
// as clock_gettime, with no file on disk. Every 64-bit process under one kernel maps
// the same image, so canopy reads its own: to unwind through the vDSO frames of the
// processes it profiles, and to name them.
#pragma once

#include <span>
#include <string_view>

namespace canopy {

// How /proc/PID/maps and the kernel's perf records name its mapping.
inline constexpr std::string_view kVdsoMapName = "[vdso]";

// This process's vDSO, from its ELF header to the end of its section headers (which
// come last in the kernel's vdso64.so), as mapped; empty when there is none or it is not
// a 64-bit ELF image.
std::span<const unsigned char> vdso_image();

}  // namespace canopy
