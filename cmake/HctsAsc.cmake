# hcts_add_asc_sources(<target> SOURCES <file.asc | file.aicpu>...)
#
# Adds an AICPU custom operator's ASC sources to <target> (its host library, as the vendor's
# toolkit builds them): each is copied into the build tree with every
# kernel<<<numBlocks, l2ctrl, stream>>>(...) launch rewritten into a call of
# hcts_asc::launch (asc/aicpu_api.h), then compiled as C++. A launch runs the kernel on the
# stream as a device program of the reference (HctsAclRefLaunchFunction); the kernel (an
# .aicpu source, __global__ __aicpu__) is linked into the same target. The sources are not
# changed; diagnostics name their own lines (#line). The source's directory joins the target's
# include path for its quoted includes. Usable in this tree and, installed, after find_package(hcts).
set(HCTS_ASC_REWRITE_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/hcts_asc_rewrite.cmake")

function(hcts_add_asc_sources target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_SOURCES)
    message(FATAL_ERROR "hcts_add_asc_sources(${target}): give SOURCES <file.asc | file.aicpu>...; "
                        "got '${ARGN}'")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "hcts_add_asc_sources(${target}): no target ${target}; create it first")
  endif()
  if(NOT HCTS_ASC_INCLUDE_DIR OR NOT EXISTS "${HCTS_ASC_INCLUDE_DIR}/aicpu_api.h")
    message(FATAL_ERROR "hcts_add_asc_sources(${target}): asc/aicpu_api.h not found "
                        "(HCTS_ASC_INCLUDE_DIR='${HCTS_ASC_INCLUDE_DIR}'); call find_package(hcts) first")
  endif()
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(path "${source}" ABSOLUTE)
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "hcts_add_asc_sources(${target}): ${path} does not exist")
    endif()
    get_filename_component(name "${path}" NAME)
    get_filename_component(dir "${path}" DIRECTORY)
    set(out "${CMAKE_CURRENT_BINARY_DIR}/hcts_asc/${target}/${name}.cpp")
    add_custom_command(OUTPUT "${out}"
      COMMAND "${CMAKE_COMMAND}" "-DIN=${path}" "-DOUT=${out}" -P "${HCTS_ASC_REWRITE_SCRIPT}"
      DEPENDS "${path}" "${HCTS_ASC_REWRITE_SCRIPT}"
      COMMENT "ASC source ${name} for the host (<<<>>> launches on the reference)" VERBATIM)
    target_sources(${target} PRIVATE "${out}")
    target_include_directories(${target} PRIVATE "${dir}")
  endforeach()
  target_include_directories(${target} PRIVATE "${HCTS_ASC_INCLUDE_DIR}")
endfunction()
