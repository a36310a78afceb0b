# canopy_layer(NAME [SOURCES ...] [LAYERS ...] [LIBS ...]): the library canopy_NAME of
# src/NAME/, linked to the layers it may use (and, through them, to theirs); without
# SOURCES, an interface library of headers.
#
# Its include root holds only src/NAME, so `#include "NAME/x.h"` resolves for the
# folder itself and for the layers it links, whose roots come with them, and for no
# other folder: an include against the grain is a build error, not a review comment.
function(canopy_layer name)
  cmake_parse_arguments(LAYER "" "" "SOURCES;LAYERS;LIBS" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${name} ${root}/${name} SYMBOLIC)
  set(layers "")
  foreach(layer IN LISTS LAYER_LAYERS)
    list(APPEND layers canopy_${layer})
  endforeach()
  if(NOT LAYER_SOURCES)  # headers only: a contract between layers, no code of its own
    add_library(canopy_${name} INTERFACE)
    target_include_directories(canopy_${name} INTERFACE ${root})
    target_link_libraries(canopy_${name} INTERFACE ${layers} ${LAYER_LIBS})
    return()
  endif()
  add_library(canopy_${name} STATIC ${LAYER_SOURCES})
  target_include_directories(canopy_${name} PUBLIC ${root})
  target_link_libraries(canopy_${name} PUBLIC ${layers} ${LAYER_LIBS})
  canopy_layer_flags(canopy_${name})
endfunction()

# Also linked into the web module, a shared object, hence -fPIC. Without
# -fno-semantic-interposition, -fPIC would also stop GCC from inlining any function
# that is not static (another library could interpose it), in the recorder's hot path
# too; nothing of canopy's is meant to be interposed.
#
# In a unity build, a layer is one translation unit (batch size 0): its files share
# most of their headers, and a layer is small enough to compile in one go.
function(canopy_layer_flags target)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON UNITY_BUILD_BATCH_SIZE 0)
  target_compile_options(${target} PRIVATE -fno-semantic-interposition)
endfunction()
