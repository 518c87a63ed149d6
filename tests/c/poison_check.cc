// The C API's promise "on an error nothing changed" after a C++ exception: the call that saw it
// fails, and the engine handle refuses every later call instead of working on a state the
// exception may have left half changed (docs/c-api.md, "Exceptions and re-entrancy").
//
// Built with the library's sources (not the shared library) so the test can reach the wrapper
// every entry point runs through and make the work inside it throw.
#include <new>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "c/c_api_internal.h"

namespace {

struct Handle {
  qm_engine* engine = nullptr;
  Handle() { REQUIRE(qm_engine_create(nullptr, &engine) == QM_OK); }
  ~Handle() { qm_engine_destroy(engine); }
};

qm_status Throwing(qm_engine* engine, auto exception) {
  return qm::c::RunOnEngine(engine, [&](qm::Engine&, qm_engine&) -> absl::Status { throw exception; });
}

}  // namespace

TEST_CASE("C API: an exception out of a call poisons the engine handle", "[c][exceptions]") {
  Handle h;
  REQUIRE(qm_engine_set_now(h.engine, 1000) == QM_OK);
  CHECK(Throwing(h.engine, std::bad_alloc()) == QM_RESOURCE_EXHAUSTED);
  CHECK(std::string(qm_engine_last_error(h.engine)).find("out of memory") != std::string::npos);
  // Every later call is refused, naming the first failure, even one that would have worked.
  CHECK(qm_engine_set_now(h.engine, 2000) == QM_FAILED_PRECONDITION);
  const std::string message = qm_engine_last_error(h.engine);
  CHECK(message.find("unusable") != std::string::npos);
  CHECK(message.find("out of memory") != std::string::npos);
  int64_t now = 0;
  CHECK(qm_engine_now(h.engine, &now) == QM_FAILED_PRECONDITION);
  CHECK(qm_engine_schedule_cycle(h.engine, nullptr) == QM_FAILED_PRECONDITION);
  // The first cause is kept.
  CHECK(Throwing(h.engine, std::runtime_error("later")) == QM_FAILED_PRECONDITION);
  CHECK(std::string(qm_engine_last_error(h.engine)).find("out of memory") != std::string::npos);
}

TEST_CASE("C API: any exception poisons, a status error does not", "[c][exceptions]") {
  Handle h;
  CHECK(qm::c::RunOnEngine(h.engine, [](qm::Engine&, qm_engine&) { return absl::InvalidArgumentError("no"); }) ==
        QM_INVALID_ARGUMENT);
  CHECK(qm_engine_set_now(h.engine, 5) == QM_OK);  // an ordinary error changed nothing
  CHECK(Throwing(h.engine, std::logic_error("broken")) == QM_INTERNAL);
  CHECK(std::string(qm_engine_last_error(h.engine)).find("broken") != std::string::npos);
  CHECK(qm_engine_set_now(h.engine, 6) == QM_FAILED_PRECONDITION);
  Handle other;
  CHECK(Throwing(other.engine, 42) == QM_INTERNAL);
  CHECK(qm_engine_set_now(other.engine, 6) == QM_FAILED_PRECONDITION);
}
