# Helpers for registering tests.
include(GoogleTest)

# Where softverbs puts its drop-in libibverbs.so.1; a test that runs verbs code
# gets it first on LD_LIBRARY_PATH through hcts_use_softverbs().
set(HCTS_SOFTVERBS_DIR ${CMAKE_BINARY_DIR}/lib/softverbs CACHE INTERNAL "softverbs library directory")

# hcts_use_softverbs(TEST name... [ENV VAR=value...]): run the named ctest cases on softverbs.
function(hcts_use_softverbs)
  cmake_parse_arguments(arg "" "" "TEST;ENV" ${ARGN})
  foreach(test IN LISTS arg_TEST)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
      "LD_LIBRARY_PATH=${HCTS_SOFTVERBS_DIR}:$ENV{LD_LIBRARY_PATH}" ${arg_ENV})
  endforeach()
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
  add_test(NAME ${name} COMMAND ${name} --gtest_color=no)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${arg_TIMEOUT} LABELS "${arg_LABELS}")
endfunction()
