add_executable(hcts_mpi_selftest tests/selftest.cpp)
target_link_libraries(hcts_mpi_selftest PRIVATE hcts::mpi_harness hcts::warnings)

# Each scenario is one mpirun judged from outside by check.sh.
foreach(scenario IN ITEMS agree hang kill)
  add_test(NAME mpi_harness.selftest.${scenario}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hcts_mpi_selftest> ${scenario})
  set_tests_properties(mpi_harness.selftest.${scenario} PROPERTIES TIMEOUT 60 LABELS "mpi")
endforeach()
