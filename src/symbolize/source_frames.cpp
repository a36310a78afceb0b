#include "symbolize/source_frames.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

#include <filesystem>
#include <utility>

#include "symbolize/demangle.h"
#include "symbolize/function_names.h"

namespace canopy::symbolize {
namespace {

// Deeper than any real nesting of scopes (a long chain of inlined templates is some
// tens); a corrupt file cannot make the search below overflow the stack.
constexpr int kMaxScopeDepth = 512;

bool is_function_scope(int tag) {
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_entry_point;
}

// Appends the code scopes below `parent` that hold pc, outermost first, down to the
// innermost; false when none does. This is the concrete tree, each inlined instance
// inside what it was inlined into. libdw's dwarf_getscopes would give the innermost
// scope, but elfutils 0.188 (Debian 12) gives none at all inside an inlined instance
// whose abstract origin is in another unit, as every one is with gcc -flto (fixed
// upstream after 0.188: "libdw: Search for abstract origin in the correct CU").
bool append_scopes_at(Dwarf_Die* parent, Dwarf_Addr pc, int depth, std::vector<Dwarf_Die>& path) {
  Dwarf_Die child;
  if (depth > kMaxScopeDepth || dwarf_child(parent, &child) != 0) {
    return false;
  }
  do {
    int tag = dwarf_tag(&child);
    if (is_code_scope(tag) && dwarf_haspc(&child, pc) == 1) {
      path.push_back(child);
      append_scopes_at(&child, pc, depth + 1, path);
      return true;
    }
    if (is_named_scope(tag) && append_scopes_at(&child, pc, depth + 1, path)) {
      return true;
    }
  } while (dwarf_siblingof(&child, &child) == 0);
  return false;
}

// A relative source path (the compiler was given one, as ccache and out-of-tree builds
// do) is taken from the unit's compilation directory.
std::string source_path(const char* file, Dwarf_Die* unit) {
  Dwarf_Attribute attribute;
  const char* directory = dwarf_formstring(dwarf_attr(unit, DW_AT_comp_dir, &attribute));
  if (file[0] == '/' || directory == nullptr || directory[0] != '/') {
    return file;
  }
  return (std::filesystem::path(directory) / file).lexically_normal().string();
}

// Where an inlined instance was called from, in its caller: DW_AT_call_file indexes the
// file table of the unit that holds the instance.
void set_call_site(Dwarf_Die* inlined, SourceFrame& caller) {
  Dwarf_Attribute attribute;
  Dwarf_Word file_index = 0;
  Dwarf_Die unit;
  Dwarf_Files* files = nullptr;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &file_index) == 0 &&
      dwarf_diecu(inlined, &unit, nullptr, nullptr) != nullptr && dwarf_getsrcfiles(&unit, &files, nullptr) == 0) {
    if (const char* file = dwarf_filesrc(files, file_index, nullptr, nullptr)) {
      caller.file = source_path(file, &unit);
    }
  }
  Dwarf_Word line = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &line) == 0) {
    caller.line = static_cast<int>(line);
  }
}

// The functions whose code is at pc, from the innermost inlined instance out to the
// concrete function it was inlined into, each caller at its call site.
std::vector<SourceFrame> inline_chain_at(UnitFunctions& functions, Dwarf_Addr unit_pc) {
  std::vector<Dwarf_Die> path;
  if (Dwarf_Die* function = functions.scope_at(unit_pc)) {
    path.push_back(*function);
    append_scopes_at(function, unit_pc, 1, path);
  }
  std::vector<SourceFrame> frames;
  Dwarf_Die* inlined_callee = nullptr;  // the previous frame, when it was inlined here
  for (auto scope = path.rbegin(); scope != path.rend(); ++scope) {
    int tag = dwarf_tag(&*scope);
    if (!is_function_scope(tag)) {
      continue;  // lexical blocks
    }
    SourceFrame frame;
    frame.function = scope_function_name(&*scope);
    frame.inlined = tag == DW_TAG_inlined_subroutine;
    if (inlined_callee != nullptr) {
      set_call_site(inlined_callee, frame);
    }
    frames.push_back(std::move(frame));
    if (!frames.back().inlined) {
      break;  // the concrete function: its callers are other frames of the stack
    }
    inlined_callee = &*scope;
  }
  return frames;
}

}  // namespace

std::vector<SourceFrame> source_frames_at(ModuleFile& module, uint64_t pc) {
  std::vector<SourceFrame> frames;
  Dwarf_Addr bias = 0;  // from the module's addresses to its DWARF's
  // libdw finds the unit by .debug_aranges; without them (clang's and rustc's DWARF),
  // by the units' own ranges.
  Dwarf_Die* unit = dwfl_module_addrdie(module.dwfl_module(), pc, &bias);
  if (unit == nullptr) {
    unit = module.units().unit_at(pc, &bias);
  }
  if (unit != nullptr) {
    frames = inline_chain_at(module.functions_of(unit), pc - bias);
    // The line table says where the innermost code at pc came from; the callers' lines
    // are the call sites above.
    if (Dwarf_Line* line = dwarf_getsrc_die(unit, pc - bias)) {
      int line_number = 0;
      const char* file = dwarf_linesrc(line, nullptr, nullptr);
      if (file != nullptr && dwarf_lineno(line, &line_number) == 0) {
        if (frames.empty()) {
          frames.emplace_back();
        }
        frames.front().file = source_path(file, unit);
        frames.front().line = line_number;
      }
    }
  }
  if (frames.empty()) {
    frames.emplace_back();
  }
  // Without DWARF (a stripped library with no debug package), the symbol table still
  // names the concrete function.
  if (frames.back().function.empty()) {
    const SymbolIndex::Symbol* symbol = module.symbols().symbol_at(pc);
    frames.back().function =
        symbol == nullptr ? "" : demangle_symbol(symbol->name.c_str()) + (symbol->plt_stub ? "@plt" : "");
  }
  return frames;
}

}  // namespace canopy::symbolize
