# Tests of the suite itself. The checking functions are unit-tested without MPI.
# (Without a Harness, mpi_harness's barriers and collectives act for a world of one rank.)
hcts_gtest(conformance.checks SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tests/checks_test.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/tests/checks_test_suite.cpp
  LIBS hcts_conformance_world hcts::core hcts::mpi_harness TIMEOUT 30 LABELS conformance)
target_include_directories(conformance.checks PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)

# Acceptance 2: every clause has a case and every case names existing clauses.
add_test(NAME conformance.catalogue COMMAND hcts-conformance --check-catalogue)
set_tests_properties(conformance.catalogue PROPERTIES TIMEOUT 30 LABELS conformance)
# ... and the check can fail: a catalogue naming a function the headers do not
# declare, and naming none of the others, is refused for both (non-zero exit).
add_test(NAME conformance.catalogue_rejects
  COMMAND sh -c "out=$($0 --check-catalogue --clauses $1 2>&1) && exit 1; printf '%s\\n' \"$out\" | grep -F \"names function 'HcommNoSuchCall'\" && printf '%s\\n' \"$out\" | grep -F \"function HcclCommDestroy (declared in include/) is named by no clause\""
    $<TARGET_FILE:hcts-conformance> ${CMAKE_CURRENT_SOURCE_DIR}/tests/data/one_clause.yaml)
set_tests_properties(conformance.catalogue_rejects PROPERTIES TIMEOUT 30 LABELS conformance)

# The reference passes its own (strict) gate. The suite's proof that it can fail
# (wrong IUTs, mutants) is selftest/'s hcts-selftest. Needs the reference.
add_executable(hcts-selfcheck ${CMAKE_CURRENT_SOURCE_DIR}/tests/selfcheck.cpp)
target_link_libraries(hcts-selfcheck PRIVATE hcts::core CLI11::CLI11 hcts::warnings)

if(TARGET hcomm)
  set(run ${CMAKE_CURRENT_SOURCE_DIR}/tests/run_suite.sh)
  # run_suite.sh runs 2 ranks: L13 (3 ranks) is NOT_SUPPORTED there by design;
  # conformance.litmus.l13 runs it on 3.
  set(l13_ok --not-supported-ok=WWN.LIT.13)
  set(out ${CMAKE_BINARY_DIR}/conformance-selftest)
  # The reference claims the stricter checks: its own run gates on STRICT clauses too.
  add_test(NAME conformance.reference
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference $<TARGET_FILE:hcomm> 0 reference ${l13_ok})
  set_property(TEST conformance.reference APPEND PROPERTY ENVIRONMENT "RUN_SUITE_ARGS=--gate strict")
  # The wrong IUTs' runs are catalogue entries now (selftest/catalogue/shims.yaml),
  # run and judged by hcts-selftest (ctest selftest.wrong).
  set(selftests conformance.reference)
  set_tests_properties(${selftests} PROPERTIES TIMEOUT 300 LABELS "conformance;mpi" RUN_SERIAL TRUE)
  hcts_use_softverbs(TEST ${selftests})
  add_custom_target(hcts_conformance_selftest_iuts ALL DEPENDS hcts_iut_notify_early hcts_iut_index_off_by_one
    hcts_iut_host_accept hcts_iut_no_wwn hcts-selfcheck hcts-conformance hcomm)
  if(TARGET softverbs)
    add_dependencies(hcts_conformance_selftest_iuts softverbs)
  endif()
endif()

# The reference must also pass under softverbs' adversarial mode (seeded delays,
# shuffled placement); a fixed seed keeps the test reproducible. As in ./hcts run's
# adversarial configuration, its writes are capped at 16384 bytes per RDMA WRITE, so a
# large write is several WRITEs the adversary delays and reorders (every case runs).
if(TARGET hcomm)
  add_test(NAME conformance.reference.adversarial
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference-adversarial $<TARGET_FILE:hcomm> 0 reference ${l13_ok})
  set_tests_properties(conformance.reference.adversarial PROPERTIES TIMEOUT 300 LABELS "conformance;mpi" RUN_SERIAL TRUE)
  hcts_use_softverbs(TEST conformance.reference.adversarial ENV SOFTVERBS_SEED=20261129 HCOMM_REF_MAX_WRITE=16384)
endif()

# A row of the seed's product table without the call: on the reference's "a3"
# profile (AICPU_TS over RoCE/HCCS) the call must be refused (WWN.DEV.3 PASS) and
# every clause needing it NOT_SUPPORTED; the gate fails, nothing crashes.
if(TARGET hcomm)
  add_test(NAME conformance.product.a3
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/product-a3 $<TARGET_FILE:hcomm> 1 not-supported WWN.DEV.3)
  set_tests_properties(conformance.product.a3 PROPERTIES TIMEOUT 300 LABELS "conformance;mpi" RUN_SERIAL TRUE)
  hcts_use_softverbs(TEST conformance.product.a3 ENV HCOMM_REF_PRODUCT=a3)
endif()

# The other rows without the call (seed product table): the reference's a2-style
# profiles have no AICPU_TS engine, so the suite sets up on CPU_TS threads and
# channels over RoCE and judges the call there and on the device (WWN.DEV.3:
# refused with HCCL_E_NOT_SUPPORT, nothing written, no notify).
if(TARGET hcomm)
  foreach(row a2 atlas200i_500_a2 inference training)
    add_test(NAME conformance.product.${row}
      COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/product-${row} $<TARGET_FILE:hcomm> 1 not-supported WWN.DEV.3)
    set_tests_properties(conformance.product.${row} PROPERTIES TIMEOUT 300 LABELS "conformance;mpi" RUN_SERIAL TRUE)
    hcts_use_softverbs(TEST conformance.product.${row} ENV HCOMM_REF_PRODUCT=${row})
  endforeach()
endif()

# Litmus L13 (3-party chain) on 3 ranks: a profile is reported, never NOT_SUPPORTED.
if(TARGET hcomm)
  add_test(NAME conformance.litmus.l13
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/run_l13.sh ${CMAKE_BINARY_DIR}/bin ${out}/litmus-l13 $<TARGET_FILE:hcomm>)
  set_tests_properties(conformance.litmus.l13 PROPERTIES TIMEOUT 120 LABELS "conformance;mpi" RUN_SERIAL TRUE)
  hcts_use_softverbs(TEST conformance.litmus.l13)
endif()

# More than 2 ranks: every case's pairs must name both ends' channels right
# (ranks 2.. idle in two-party cases but take part in set-up, barriers and incast).
# One host with 4 oversubscribed ranks, and 4 ranks on 2 simulated nodes through
# mpi_harness/cluster (root only; skipped with 77 otherwise), which must record
# two distinct hosts.
if(TARGET hcomm)
  add_test(NAME conformance.reference.np4
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference-np4 $<TARGET_FILE:hcomm> 0 reference)
  hcts_use_softverbs(TEST conformance.reference.np4 ENV RUN_SUITE_NP=4 HCTS_SELFCHECK_RANKS=4 HCTS_SELFCHECK_HOSTS=1)
  add_test(NAME conformance.reference.cluster
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference-cluster $<TARGET_FILE:hcomm> 0 reference)
  # The cluster places ranks round-robin: ranks 0 and 1 on different nodes, so
  # two-party cases cross TCP between network namespaces.
  hcts_use_softverbs(TEST conformance.reference.cluster
    ENV RUN_SUITE_NP=4 RUN_SUITE_NODES=2 HCTS_SELFCHECK_RANKS=4 HCTS_SELFCHECK_HOSTS=2 HCTS_SELFCHECK_PARTIES_APART=1)
  set_tests_properties(conformance.reference.np4 conformance.reference.cluster PROPERTIES
    TIMEOUT 600 LABELS "conformance;mpi" RUN_SERIAL TRUE)
  set_tests_properties(conformance.reference.cluster PROPERTIES SKIP_RETURN_CODE 77)
endif()

# The configurations of ./hcts run beyond the plain one, each as run there:
# softverbs forced onto its TCP route on one host (every case), and the segment
# configuration (the reference's writes capped at 4000 bytes, which its adapter
# declares as the segment size; the Visibility, Notify and Litmus cases, lengths
# straddling the segment; timeouts in ms, as there). A subset's gate is no verdict (summary.not_run):
# it exits by what it judged (summary.judged), 0 here, and every clause it decided must PASS or PROFILE.
if(TARGET hcomm)
  add_test(NAME conformance.reference.tcp
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference-tcp $<TARGET_FILE:hcomm> 0 reference ${l13_ok})
  hcts_use_softverbs(TEST conformance.reference.tcp ENV SOFTVERBS_TRANSPORT=tcp)
  add_test(NAME conformance.reference.segment
    COMMAND ${run} ${CMAKE_BINARY_DIR}/bin ${out}/reference-segment $<TARGET_FILE:hcomm> 0 reference ${l13_ok})
  hcts_use_softverbs(TEST conformance.reference.segment
    ENV HCOMM_REF_MAX_WRITE=4000 HCOMM_REF_TIMEOUT_UNIT=ms HCTS_SELFCHECK_SUBSET=1 HCTS_SELFCHECK_SEGMENT=4000
        "RUN_SUITE_ARGS=--configuration segment --segment-size auto --gtest_filter=Visibility.*:Notify.*:Litmus.*")
  set_tests_properties(conformance.reference.tcp conformance.reference.segment PROPERTIES
    TIMEOUT 300 LABELS "conformance;mpi" RUN_SERIAL TRUE)
endif()

# Sanitizer options for the MPI runs above (leak checks off under asan: Open MPI).
hcts_mpi_test_env()
