// Where an ELF object's own addresses lie in a process: its load bias, from one
// executable mapping of it (start and file offset, as /proc/PID/maps or a perf MMAP2
// record give them) and the object's program headers. The profilers record addresses
// in the object's own address space (pc - bias), which symbolize/ looks up offline.
#pragma once

#include <cstdint>
#include <string>

namespace canopy::probe {

// pc - bias is the object's virtual address of pc. When the file cannot be read as a
// 64-bit ELF object, the mapping is taken to lie at its file offset (virtual address
// equal to file offset, as the usual x86-64 shared object and PIE executable have it).
uint64_t elf_load_bias(const std::string& path, uint64_t map_start, uint64_t file_offset);

// The object's GNU build-id (NT_GNU_BUILD_ID in a PT_NOTE segment) as lowercase hex;
// "" when it has none or cannot be read. For mappings the kernel did not report with
// their build-id: those that predate the profiler (record --pid), and the vDSO, whose
// path is "[vdso]": this process's (common/vdso_image.h), the same as every 64-bit
// process's under this kernel.
std::string elf_build_id_hex(const std::string& path);

}  // namespace canopy::probe
