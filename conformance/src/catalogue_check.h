// --check-catalogue: every case names at least one clause and only known ones,
// declares what it needs, and every clause has a case; every GoogleTest test is
// a declared case (else its verdict maps to no clause). Needs no MPI.
#pragma once

namespace hcts {
class Catalogue;
// Prints each problem; returns their number.
int check_catalogue(const Catalogue &catalogue, bool print_ok);
} // namespace hcts
