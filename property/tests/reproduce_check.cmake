# Self-test of the property suite against a deliberately wrong implementation:
#  1. RUN (a list: the hcts-property command line) must find a counterexample of
#     at most 5 generated commands for every selected property (--expect-counterexample);
#  2. the reproduce command it printed (and wrote to results.json) must fail again
#     with the same counterexample.
# cmake -DRUN="bin;args..." -DWORK=dir -P reproduce_check.cmake
if(NOT RUN OR NOT WORK)
  message(FATAL_ERROR "reproduce_check.cmake needs -DRUN=<command;args> and -DWORK=<dir>")
endif()
file(MAKE_DIRECTORY ${WORK})
set(first ${WORK}/first.json)
execute_process(COMMAND ${RUN} --expect-counterexample --max-commands 5 --results ${first}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the suite did not find a counterexample of at most 5 commands (exit ${rc})")
endif()
file(READ ${first} doc)
string(JSON n LENGTH "${doc}" properties)
if(n EQUAL 0)
  message(FATAL_ERROR "${first} lists no property")
endif()
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${doc}" properties ${i} name)
  string(JSON command GET "${doc}" properties ${i} command)
  string(JSON expected GET "${doc}" properties ${i} counterexample)
  set(again ${WORK}/again-${name}.json)
  message("reproducing ${name}: ${command}")
  execute_process(COMMAND sh -c "${command} --results ${again}" RESULT_VARIABLE rc2 OUTPUT_VARIABLE out2
    ERROR_VARIABLE err2)
  if(rc2 EQUAL 0)
    message(FATAL_ERROR "the printed reproducer of ${name} passed; it must fail again:\n${out2}${err2}")
  endif()
  file(READ ${again} doc2)
  string(JSON got GET "${doc2}" properties 0 counterexample)
  if(NOT got STREQUAL expected)
    message(FATAL_ERROR "the reproducer of ${name} gave another counterexample:\n${got}\nexpected:\n${expected}")
  endif()
  message("reproduced ${name}: same counterexample")
endforeach()
