# hcts_add_aicpu_kernel(<name> SOURCES <file>... [LIBS <target or library>...])
#
# Builds an AICPU kernel's unchanged sources for this host as lib<name>.so, the
# file an op-info JSON names in "kernelSo" and the ACL runtime on the reference
# loads (acl_runtime/README.md, Kernels). The kernel sees the vendor's headers
# (hcomm/hcomm_primitives.h, hccl/..., acl/...) and links the reference's hcomm,
# so its Hcomm*OnThread calls run on the reference as device programs.
# Usable in this tree and, installed, after find_package(hcts).
function(hcts_add_aicpu_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;LIBS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hcts_add_aicpu_kernel(${name}): unknown arguments '${arg_UNPARSED_ARGUMENTS}'; "
                        "allowed: SOURCES <file>... LIBS <library>...")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "hcts_add_aicpu_kernel(${name}): no SOURCES; give the kernel's source files")
  endif()
  foreach(dep IN ITEMS hcts::hcomm hcts::ascendcl)
    if(NOT TARGET ${dep})
      message(FATAL_ERROR "hcts_add_aicpu_kernel(${name}): target ${dep} is not defined; "
                          "call find_package(hcts) first")
    endif()
  endforeach()
  # SHARED, not MODULE: a test program may also link the kernel to call it directly.
  add_library(${name} SHARED ${arg_SOURCES})
  target_link_libraries(${name} PRIVATE hcts::hcomm hcts::ascendcl ${arg_LIBS})
  # The runtime finds the kernel function with dlsym: it keeps the sources' own
  # visibility (extern "C", default), as the vendor's toolchain does.
  set_target_properties(${name} PROPERTIES PREFIX "lib" SUFFIX ".so" POSITION_INDEPENDENT_CODE ON)
  # On the device a kernel is its own image on the AI CPU; here it is loaded into the host
  # program, whose host library often has the same inline C++ (a shared header's classes)
  # built differently (the vendor's host options use the old string ABI). -Bsymbolic keeps
  # the kernel's calls on its own definitions instead of the host library's.
  target_link_options(${name} PRIVATE "LINKER:-Bsymbolic")
endfunction()
