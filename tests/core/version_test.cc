// version.h must say what the CMake project says (the package version file is generated from it).
#include "qm/version.h"

#include <catch2/catch.hpp>
#include <string>

TEST_CASE("version.h matches the CMake project version", "[core]") {
  CHECK(std::string(QM_VERSION_STRING) == QM_PROJECT_VERSION);
  CHECK(std::string(QM_VERSION_STRING) == std::to_string(QM_VERSION_MAJOR) + "." +
                                              std::to_string(QM_VERSION_MINOR) + "." +
                                              std::to_string(QM_VERSION_PATCH));
}
