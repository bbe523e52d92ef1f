# Helpers for registering tests.
include(GoogleTest)

# Where softverbs puts its drop-in libibverbs.so.1; a test that runs verbs code
# gets it first on LD_LIBRARY_PATH through hcts_use_softverbs().
set(HCTS_SOFTVERBS_DIR ${CMAKE_BINARY_DIR}/lib/softverbs CACHE INTERNAL "softverbs library directory")

# hcts_use_softverbs(TEST name... [ENV VAR=value...]): run the named ctest cases on softverbs.
# The default secret of tests is the build tree's own secret file (made on first use,
# mode 0600), not the user's ~/.config/softverbs/secret: a test neither depends on nor
# makes a file in the home directory (docs/security.md).
function(hcts_use_softverbs)
  cmake_parse_arguments(arg "" "" "TEST;ENV" ${ARGN})
  foreach(test IN LISTS arg_TEST)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
      "LD_LIBRARY_PATH=${HCTS_SOFTVERBS_DIR}:$ENV{LD_LIBRARY_PATH}"
      "SOFTVERBS_SECRET_FILE=${CMAKE_BINARY_DIR}/softverbs-secret" ${arg_ENV})
  endforeach()
endfunction()

# Gives every test of the calling directory the build tree's secret file (as
# hcts_use_softverbs does), for those that run softverbs through softverbs-run; call it
# after the directory's last add_test. A SOFTVERBS_SECRET_FILE a test sets itself wins.
function(hcts_softverbs_secret_file_env)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} ENVIRONMENT env)
    if(NOT env MATCHES "SOFTVERBS_SECRET_FILE=")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "SOFTVERBS_SECRET_FILE=${CMAKE_BINARY_DIR}/softverbs-secret")
    endif()
  endforeach()
endfunction()

# GoogleTest's headers and the standard headers the tests use cost more to compile
# than most test files themselves: with HCTS_PRECOMPILE_HEADERS they are compiled
# once, into the precompiled header of hcts_gtest_pch, which every hcts_gtest program
# reuses (REUSE_FROM). GCC takes a precompiled header only if it was built with the
# same options (-fPIE, GTEST_HAS_PTHREAD, hcts::warnings), hence an executable linked
# as the tests are; a mismatch would be an -Winvalid-pch error under -Werror, not a
# silent slow build. It saves about 1.3 s of CPU per test source.
# GCC 12 does not carry the headers' #pragma GCC diagnostic state in a precompiled
# header: libstdc++ silences its -Warray-bounds false positive in std::string's
# operator+ (bits/char_traits.h) that way, so a test source that meets it (an error in
# char_traits.h, included from cmake_pch.hxx) is compiled without the precompiled
# header: set its SKIP_PRECOMPILE_HEADERS, as core/tests/tests.cmake does (3 of the
# about 60 test sources need it).
option(HCTS_PRECOMPILE_HEADERS "Precompile GoogleTest and the standard headers once for all test programs" ON)
if(HCTS_PRECOMPILE_HEADERS)
  add_executable(hcts_gtest_pch ${CMAKE_CURRENT_LIST_DIR}/gtest_pch.cpp)
  target_link_libraries(hcts_gtest_pch PRIVATE GTest::gtest GTest::gtest_main hcts::warnings)
  # Out of bin/: it is no program of the suite.
  set_target_properties(hcts_gtest_pch PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/pch)
  target_precompile_headers(hcts_gtest_pch PRIVATE <gtest/gtest.h> <algorithm> <atomic> <chrono> <cstdint>
    <cstdio> <cstdlib> <cstring> <fstream> <functional> <map> <memory> <set> <sstream> <string> <thread> <vector>)
endif()

# hcts_gtest_pch(target): a GoogleTest program made without hcts_gtest takes the
# shared precompiled header too (its compile options must be the tests' own).
function(hcts_gtest_pch target)
  if(HCTS_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} REUSE_FROM hcts_gtest_pch)
  endif()
endfunction()

# hcts_gtest(name SOURCES ... LIBS ... [LABELS ...] [TIMEOUT s]): one GoogleTest
# program registered with ctest as a single test (keeps ctest output short and
# process start-up cheap); every test has a deadline.
function(hcts_gtest name)
  cmake_parse_arguments(arg "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  add_executable(${name} ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main hcts::warnings ${arg_LIBS})
  hcts_gtest_pch(${name})
  add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "${arg_LABELS}")
endfunction()

# Sanitizer options for tests that run MPI programs (every preset; only the
# sanitizer built in reads its variable). asan: Open MPI keeps allocations past
# MPI_Finalize in components it has unloaded by then, so LeakSanitizer reports
# them with stacks ending in "<unknown module>" that no suppression can match:
# MPI programs run without leak detection, every other ASan/UBSan check stays on.
# tsan: Open MPI's own reports are suppressed (mpi_harness/tests/tsan-openmpi.supp).
set(HCTS_MPI_TEST_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"
    "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${PROJECT_SOURCE_DIR}/mpi_harness/tests/tsan-openmpi.supp")

# Gives every test of the calling directory labelled "mpi" those options; call it
# after the directory's last add_test.
function(hcts_mpi_test_env)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    get_test_property(${t} LABELS labels)
    if("mpi" IN_LIST labels)
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT ${HCTS_MPI_TEST_ENV})
    endif()
  endforeach()
endfunction()

# hcts_preset_of_this_build(<var>): the CMakePresets.json preset (default, asan,
# tsan) whose build directory is this one, or "" for any other directory. ./hcts
# knows its build directories only by preset, so ctests that run ./hcts need it.
function(hcts_preset_of_this_build var)
  file(REAL_PATH ${CMAKE_BINARY_DIR} binary_dir)
  set(preset "")
  foreach(candidate default asan tsan)
    set(dir ${CMAKE_SOURCE_DIR}/build-${candidate})
    if(candidate STREQUAL "default")
      set(dir ${CMAKE_SOURCE_DIR}/build)
    endif()
    if(EXISTS ${dir})
      file(REAL_PATH ${dir} dir)
      if(dir STREQUAL binary_dir)
        set(preset ${candidate})
      endif()
    endif()
  endforeach()
  set(${var} ${preset} PARENT_SCOPE)
endfunction()
