// Names as rustc, g++ and C write them, taken from real binaries' symbol tables.
#include <gtest/gtest.h>

#include "symbolize/demangle.h"

namespace canopy::symbolize {
namespace {

TEST(Demangle, CxxNamesByTheItaniumAbi) {
  EXPECT_EQ(demangle_symbol("_ZN6canopy4stepEi"), "canopy::step(int)");
  EXPECT_EQ(demangle_symbol("_ZNSt6vectorIiSaIiEE9push_backERKi"),
            "std::vector<int, std::allocator<int> >::push_back(int const&)");
}

TEST(Demangle, RustV0Names) {
  EXPECT_EQ(demangle_symbol("_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"), "std::rt::lang_start_internal");
  EXPECT_EQ(demangle_symbol("_RINvMNtCsgEmfK2I1SDS_4core5sliceSh11copy_withinINtNtNtB5_3ops5range14RangeInclusivejEE"
                            "CsfEOYDRpO4Ta_11miniz_oxide"),
            "<[u8]>::copy_within::<core::ops::range::RangeInclusive<usize>>");
}

// Legacy Rust names are valid C++ names too, which the C++ demangler would turn into
// `rs::main::h45c08d364a487c24` and `std::rt::lang_start::_$u7b$$u7b$closure...`.
TEST(Demangle, RustLegacyNamesWithoutTheirHash) {
  EXPECT_EQ(demangle_symbol("_ZN2rs4main17h45c08d364a487c24E"), "rs::main");
  EXPECT_EQ(demangle_symbol("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hf5444386c1c5f08eE"),
            "std::rt::lang_start::{{closure}}");
}

TEST(Demangle, OtherNamesStayAsTheyAre) {
  EXPECT_EQ(demangle_symbol("main"), "main");
  EXPECT_EQ(demangle_symbol("__GI___libc_malloc"), "__GI___libc_malloc");
  EXPECT_EQ(demangle_symbol("_Zebra"), "_Zebra");  // a C function that only looks mangled
  EXPECT_EQ(demangle_symbol("_Rust_begin"), "_Rust_begin");
  EXPECT_EQ(demangle_symbol("_R"), "_R");
  EXPECT_EQ(demangle_symbol("_ZN6canopy4stepE"), "canopy::step");
}

}  // namespace
}  // namespace canopy::symbolize
