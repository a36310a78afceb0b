# `cmake --install` (make install) and `cpack` (make package): the binary, and the
# viewer's module and the heap profiler where the binary looks for them, PREFIX/lib/canopy/ (not the
# multiarch library directory: it is canopy's own module, not a library for others).
# The man page and the shell completion install from man/ and completion/.
install(TARGETS canopy RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS canopy_web_module LIBRARY DESTINATION lib/canopy)
install(TARGETS canopy_heap LIBRARY DESTINATION lib/canopy)  # record --heap preloads it

# A .deb whose Depends dpkg-shlibdeps reads off the binary and the module: the Debian
# runtime libraries they link, at the versions this machine built against.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME canopy)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "canopy developers <canopy@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "flight recorder for process trees: memory and CPU of every process")
set(CPACK_PACKAGE_DESCRIPTION
    "canopy record runs a command like time does and records the memory and CPU of it and of every process it starts, many times a second, into one crash-safe SQLite file. canopy report summarises a recording, canopy view opens it in the browser, canopy export hands it to other tools.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
