# Tests of the suite itself.
hcts_gtest(conformance.stamp SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/stamp_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/src/stamp.cpp TIMEOUT 30 LABELS conformance)
target_include_directories(conformance.stamp PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)

# Acceptance 2: every clause has a case and every case names existing clauses.
add_test(NAME conformance.catalogue COMMAND hcts-conformance --check-catalogue)
set_tests_properties(conformance.catalogue PROPERTIES TIMEOUT 30 LABELS conformance)
