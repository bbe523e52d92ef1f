# hcts env: every table listed, values of this environment, bad values flagged; and every
# variable a component's sources name is in its table (no variable read by hand).
add_test(NAME tools.env COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/env_test.sh $<TARGET_FILE:hcts-env>
  ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
set_tests_properties(tools.env PROPERTIES TIMEOUT 60 LABELS tools)
