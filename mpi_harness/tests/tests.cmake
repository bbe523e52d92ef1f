add_executable(hcts_mpi_selftest tests/selftest.cpp)
target_link_libraries(hcts_mpi_selftest PRIVATE hcts::mpi_harness hcts::warnings)
