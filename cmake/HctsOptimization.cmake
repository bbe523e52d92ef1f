# How much the suite's own programs are optimised. They spend their run in waits and
# a little JSON and command-line parsing, and their heaviest sources (CLI11, nlohmann
# JSON, GoogleTest) dominate the build a first ./hcts run makes: at -O1 that build
# takes about 30 % less compile time than at -O2. What is judged or timed keeps the
# build type's optimisation: the reference, softverbs, the ACL runtime, the world and
# device programs the cases and hcts-bench run through, the MPI harness, and bench.
set(HCTS_SUITE_OPTIMIZATION "-O1" CACHE STRING
  "optimisation flag of the suite's own programs in optimised builds (empty: the build type's)")

# hcts_suite_code(target...): these targets are suite code (above).
function(hcts_suite_code)
  if(NOT HCTS_SUITE_OPTIMIZATION)
    return()
  endif()
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE
      $<$<CONFIG:RelWithDebInfo,Release,MinSizeRel>:${HCTS_SUITE_OPTIMIZATION}>)
  endforeach()
endfunction()
