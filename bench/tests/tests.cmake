# hcts-bench is a benchmark, not a test: these only check that it runs and
# writes a valid results document (tiny sizes, few iterations), and that a
# violated --baseline ratio exits 3 with the values printed.
set(bench_check ${CMAKE_CURRENT_LIST_DIR}/bench_check.sh)
foreach(what IN ITEMS runs baseline_violation)
  add_test(NAME bench.${what}
    COMMAND ${bench_check} ${what} ${PROJECT_SOURCE_DIR} $<TARGET_FILE:hcts-bench> ${CMAKE_CURRENT_BINARY_DIR}/bench-${what})
  # Millisecond timeouts make the reference's start-up probe (world.cpp) short.
  set_tests_properties(bench.${what} PROPERTIES TIMEOUT 300 LABELS "bench;mpi")
  hcts_use_softverbs(TEST bench.${what} ENV HCOMM_REF_TIMEOUT_UNIT=ms)
endforeach()
hcts_mpi_test_env()
