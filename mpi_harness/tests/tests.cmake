# HCTS_MPI_TEST_ENV (cmake/HctsTesting.cmake): the sanitizer options of tests that run MPI.

add_executable(hcts_mpi_selftest tests/selftest.cpp)
target_link_libraries(hcts_mpi_selftest PRIVATE hcts::mpi_harness hcts::warnings)

# Each scenario is one mpirun judged from outside by check.sh; agree also runs
# with 8 ranks, the most the suite puts on one host.
foreach(scenario IN ITEMS agree hang kill crash stall)
  add_test(NAME mpi_harness.selftest.${scenario}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hcts_mpi_selftest> ${scenario})
  set_tests_properties(mpi_harness.selftest.${scenario} PROPERTIES TIMEOUT 60 LABELS "mpi"
    ENVIRONMENT "${HCTS_MPI_TEST_ENV}")
endforeach()

# Two simulated nodes, four ranks: needs root for network namespaces.
add_executable(hcts_mpi_cluster_hosts tests/cluster_hosts.cpp)
target_link_libraries(hcts_mpi_cluster_hosts PRIVATE hcts::mpi_harness hcts::warnings)
add_test(NAME mpi_harness.cluster
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/cluster_check.sh ${CMAKE_CURRENT_SOURCE_DIR}/cluster
          $<TARGET_FILE:hcts_mpi_cluster_hosts>)
set_tests_properties(mpi_harness.cluster PROPERTIES TIMEOUT 120 LABELS "mpi" SKIP_RETURN_CODE 77
  ENVIRONMENT "HCTS_CASE_DEADLINE_S=60;${HCTS_MPI_TEST_ENV}")

add_test(NAME mpi_harness.launch
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/launch_check.sh ${CMAKE_CURRENT_SOURCE_DIR}/launch
          $<TARGET_FILE:hcts_mpi_selftest>)
add_test(NAME mpi_harness.selftest.agree8
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check.sh ${MPIEXEC_EXECUTABLE} $<TARGET_FILE:hcts_mpi_selftest> agree)
set_tests_properties(mpi_harness.selftest.agree8 PROPERTIES TIMEOUT 90 LABELS "mpi"
  ENVIRONMENT "HCTS_CHECK_NP=8;${HCTS_MPI_TEST_ENV}")

set_tests_properties(mpi_harness.launch PROPERTIES TIMEOUT 60 LABELS "mpi" ENVIRONMENT "${HCTS_MPI_TEST_ENV}")
