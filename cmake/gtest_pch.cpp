// The target that owns the test programs' precompiled header (cmake/HctsTesting.cmake,
// HCTS_PRECOMPILE_HEADERS): the header is compiled once, here, and every hcts_gtest
// program reuses it. Nothing runs this program; its main is gtest_main's.
