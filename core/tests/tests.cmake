# Unit tests of the core: no MPI, no hcomm library needed.
hcts_gtest(core.products SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/products_test.cpp LIBS hcts::products
  TIMEOUT 30 LABELS core)
hcts_gtest(core.command SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/command_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
hcts_gtest(core.run_spec SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/run_spec_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
hcts_gtest(core.stamp SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/stamp_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
hcts_gtest(core.verdicts SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/verdict_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
target_compile_definitions(core.verdicts PRIVATE
  HCTS_RESULTS_SCHEMA="${PROJECT_SOURCE_DIR}/reports/schema/results-v1.schema.json")
hcts_gtest(core.results SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/results_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
target_compile_definitions(core.results PRIVATE HCTS_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/results-test")
hcts_gtest(core.results_model SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/results_model_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
target_compile_definitions(core.results_model PRIVATE HCTS_REPORT_FIXTURES="${PROJECT_SOURCE_DIR}/reports/tests/fixtures")
hcts_gtest(core.expectations
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/expectations_parse_test.cpp
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/expectations_apply_test.cpp
  LIBS hcts::core TIMEOUT 60 LABELS core)
target_compile_definitions(core.expectations PRIVATE HCTS_EXPECTATIONS_TEST_DIR="${CMAKE_CURRENT_BINARY_DIR}")
# Without the tests' precompiled header: GCC 12 then reports libstdc++'s -Warray-bounds
# false positive in std::string's operator+ (cmake/HctsTesting.cmake).
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/tests/expectations_parse_test.cpp PROPERTIES SKIP_PRECOMPILE_HEADERS ON)

# The adapter loader against adapters of each ABI version (and broken ones).
foreach(fake IN ITEMS v1 v2 bad_version no_entry init_fails)
  add_library(hcts_fake_adapter_${fake} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/tests/fake_adapter.cpp)
  string(TOUPPER ${fake} upper)
  target_compile_definitions(hcts_fake_adapter_${fake} PRIVATE HCTS_FAKE_${upper}=1)
  target_link_libraries(hcts_fake_adapter_${fake} PRIVATE hcts::adapter_abi hcts::warnings)
  set_target_properties(hcts_fake_adapter_${fake} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/core-test)
endforeach()
add_library(hcts_fake_iut SHARED ${CMAKE_CURRENT_SOURCE_DIR}/tests/fake_iut.c)
target_link_libraries(hcts_fake_iut PRIVATE hcts::hcomm_headers)
set_target_properties(hcts_fake_iut PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/core-test)
hcts_gtest(core.loaders SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/loaders_test.cpp LIBS hcts::core
  TIMEOUT 30 LABELS core)
target_compile_definitions(core.loaders PRIVATE HCTS_CORE_TEST_LIB="${CMAKE_BINARY_DIR}/lib/core-test"
  HCTS_PROGRAMS_LIB="$<TARGET_FILE:hcts_programs>")
add_dependencies(core.loaders hcts_fake_iut hcts_programs hcts_fake_adapter_v1 hcts_fake_adapter_v2
  hcts_fake_adapter_bad_version hcts_fake_adapter_no_entry hcts_fake_adapter_init_fails)

# The settings facility (hcts/settings.h): parsing per type, defaults, errors.
hcts_gtest(core.settings SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/settings_test.cpp LIBS hcts::settings
  TIMEOUT 30 LABELS core)
hcts_gtest(core.files SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/files_test.cpp LIBS hcts::core TIMEOUT 30 LABELS core)
target_compile_definitions(core.files PRIVATE HCTS_TEST_TMP="${CMAKE_CURRENT_BINARY_DIR}/files-test")
