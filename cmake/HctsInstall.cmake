# Where `cmake --install` puts hcts under a prefix P (docs/install.md has the layout).
# The programs find their siblings relative to themselves (core/include/hcts/core/locate.h):
# bin/../lib/hcts, bin/../libexec/hcts, bin/../share/hcts. These are fixed, not
# GNUInstallDirs' LIBDIR (lib/<multiarch> for /usr on Debian), so the search holds
# under any prefix; the suite's libraries live in lib/hcts, where no vendor's own
# libhcomm.so is shadowed by the reference.
include(GNUInstallDirs)
set(HCTS_INSTALL_BINDIR bin)
set(HCTS_INSTALL_LIBDIR lib/hcts)
set(HCTS_INSTALL_LIBEXECDIR libexec/hcts)
set(HCTS_INSTALL_DATADIR share/hcts)
set(HCTS_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/hcts)
set(HCTS_INSTALL_CMAKEDIR lib/cmake/hcts)
set(HCTS_INSTALL_PKGCONFIGDIR lib/pkgconfig)

# Man pages, generated at build time from each program's --help (help2man), so
# they never drift from the command lines. Installed to share/man/man1.
find_program(HCTS_HELP2MAN help2man)
if(NOT HCTS_HELP2MAN)
  message(FATAL_ERROR "help2man not found: the man pages are generated from --help (apt-get install help2man; "
                      "./hcts setup installs it)")
endif()
set(HCTS_MAN_DIR ${CMAKE_BINARY_DIR}/man/man1)
add_custom_target(hcts_man_pages ALL)

# hcts_man_page(NAME name PROGRAM path DESCRIPTION text [DEPENDS targets...]):
# build/man/man1/<name>.1 from `<path> --help` (HCTS_HELP_NAME=<name> in its environment).
function(hcts_man_page)
  cmake_parse_arguments(arg "" "NAME;PROGRAM;DESCRIPTION" "DEPENDS" ${ARGN})
  set(page ${HCTS_MAN_DIR}/${arg_NAME}.1)
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${HCTS_MAN_DIR}
    COMMAND ${CMAKE_COMMAND} -E env HCTS_HELP_NAME=${arg_NAME} ASAN_OPTIONS=detect_leaks=0 ${HCTS_HELP2MAN} --no-info --no-discard-stderr --version-string=${PROJECT_VERSION}
            --name=${arg_DESCRIPTION} --output=${page} ${arg_PROGRAM}
    DEPENDS ${arg_DEPENDS} ${arg_PROGRAM}
    COMMENT "man page ${arg_NAME}.1 from ${arg_NAME} --help"
    VERBATIM)
  add_custom_target(hcts_man_${arg_NAME} DEPENDS ${page})
  add_dependencies(hcts_man_pages hcts_man_${arg_NAME})
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()

# hcts_install_program(target DESCRIPTION text): the program into bin/ and its man page.
function(hcts_install_program target)
  cmake_parse_arguments(arg "" "DESCRIPTION" "" ${ARGN})
  install(TARGETS ${target} RUNTIME DESTINATION ${HCTS_INSTALL_BINDIR})
  hcts_man_page(NAME ${target} PROGRAM $<TARGET_FILE:${target}> DESCRIPTION "${arg_DESCRIPTION}" DEPENDS ${target})
endfunction()
