# Every dependency comes from the distribution (scripts/install-deps.sh installs
# them) and is found the CMake way: no hard-coded paths.
find_package(Threads REQUIRED)
find_package(GTest REQUIRED)
find_package(PkgConfig REQUIRED)
# The rdma-core headers and the system libibverbs; softverbs stands in at run time.
pkg_check_modules(IBVERBS REQUIRED IMPORTED_TARGET libibverbs)
find_package(rapidcheck CONFIG QUIET)
find_package(MPI COMPONENTS C CXX QUIET)
find_package(nlohmann_json 3 CONFIG QUIET)
