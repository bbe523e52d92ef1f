# What `cmake --install` adds beyond the components' own rules (docs/install.md),
# and the Debian package (CPack DEB, ./hcts package). Included last.

# The installed command: the same ./hcts script, which finds bin/, lib/, libexec/
# and share/ relative to itself when no source tree is beside it.
install(PROGRAMS ${PROJECT_SOURCE_DIR}/hcts DESTINATION ${HCTS_INSTALL_BINDIR})
hcts_man_page(NAME hcts PROGRAM ${PROJECT_SOURCE_DIR}/hcts DESCRIPTION "the hcts conformance suite's one entry point")

# Data every installed program reads (locate.h: share/hcts): the products table.
# The clause catalogue, the schema, the self-test catalogue and the baselines are
# installed by their components.
# The version file tells the installed hcts --version.
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/package/version CONTENT "${PROJECT_VERSION}\n")
install(FILES ${PROJECT_SOURCE_DIR}/spec/products.yaml ${CMAKE_BINARY_DIR}/package/version
  DESTINATION ${HCTS_INSTALL_DATADIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB hcts_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${hcts_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR})

# find_package(hcts) and pkg-config hcts-adapter, relocatable with the prefix.
include(CMakePackageConfigHelpers)
install(EXPORT hctsTargets NAMESPACE hcts:: DESTINATION ${HCTS_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hctsConfig.cmake.in ${CMAKE_BINARY_DIR}/package/hctsConfig.cmake
  INSTALL_DESTINATION ${HCTS_INSTALL_CMAKEDIR} PATH_VARS HCTS_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/hctsConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${CMAKE_BINARY_DIR}/package/hctsConfig.cmake ${CMAKE_BINARY_DIR}/package/hctsConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/HctsAicpuKernel.cmake ${CMAKE_CURRENT_LIST_DIR}/HctsAsc.cmake
  ${CMAKE_CURRENT_LIST_DIR}/hcts_asc_rewrite.cmake DESTINATION ${HCTS_INSTALL_CMAKEDIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/hcts-adapter.pc.in ${CMAKE_BINARY_DIR}/package/hcts-adapter.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/hcts-adapter.pc DESTINATION ${HCTS_INSTALL_PKGCONFIGDIR})

# The Debian package: hcts_<version>_<arch>.deb, prefix /usr. Its dependencies are
# the Debian 12 packages of every library the installed ELF files need (objdump -p
# NEEDED, dpkg -S; ctest install.deb checks the list against the package), plus
# openmpi-bin (mpirun, through libexec/hcts/mpi_harness/launch) and
# python3-jsonschema (the results validator hcts-selftest runs).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hcts)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "hcts maintainers <hcts@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES TRUE) # RelWithDebInfo binaries are ~4x larger with their debug info
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6, libstdc++6, libgcc-s1, libssl3, libarchive13, libyaml-cpp0.7, libopenmpi3, libibverbs1, openmpi-bin, python3-jsonschema")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "iproute2, util-linux") # hcts run --nodes (simulated nodes: namespaces)
include(CPack)
