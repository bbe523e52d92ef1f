# Warnings every hcts target gets. CI turns them into errors (HCTS_WERROR, set by
# ./hcts when CI=true); a developer's build only reports them.
option(HCTS_WERROR "Treat compiler warnings as errors" OFF)

add_library(hcts_warnings INTERFACE)
add_library(hcts::warnings ALIAS hcts_warnings)
target_compile_options(hcts_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wcast-align -Wnull-dereference
  $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor -Woverloaded-virtual>
  # clang (the fuzz preset): the vendor's headers nest structs in anonymous unions, a
  # layout include/tests pins; gcc accepts it silently.
  $<$<CXX_COMPILER_ID:Clang>:-Wno-nested-anon-types>
  $<$<BOOL:${HCTS_WERROR}>:-Werror>)
