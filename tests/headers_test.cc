// Every header under include/qm compiles alone (includes what it uses, no order dependence).
//
// This file is not compiled by itself: cmake/quartermaster_header_tests.cmake generates one
// translation unit per header that defines `QM_HEADER_UNDER_TEST` and includes this file, plus one
// that defines `QM_HEADERS_TEST_ALL` (a generated header including every header) and gets `main`.
// All of them are linked into `qm_headers_test` (CTest: headers.self_contained). When this file is
// compiled with neither macro (for instance picked up by a glob of *_test.cc) it is empty.

#if defined(QM_HEADER_UNDER_TEST)

// First, so the header must include everything it uses.
#include QM_HEADER_UNDER_TEST
// Again, so its include guard must work.
#include QM_HEADER_UNDER_TEST

#elif defined(QM_HEADERS_TEST_ALL)

// Every header in one unit: names must not clash, and each header also appears in its own unit, so
// a non-inline definition in a header fails to link.
#include QM_HEADERS_TEST_ALL

int main() { return 0; }

#endif
