// Kubernetes quantity text (quantity_text.h) and Kueue's saturating amount arithmetic (quantity.h).
//
// Expected values are derived by hand from Kubernetes' rules (k8s.io/apimachinery
// pkg/api/resource: the quantity grammar of quantity.go, the suffix table of suffix.go, rounding
// up of `MilliValue`/`Value`, and the canonical `String()` form), and from docs/semantics.md §1.1:
// CPU in millicores, everything else in base units, rounded up (away from zero).
#include "qm/core/quantity_text.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "qm/core/quantity.h"

namespace qm {
namespace quantity_test {
namespace {

constexpr int64_t kKi = int64_t{1} << 10;
constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
constexpr int64_t kEi = int64_t{1} << 60;

// The parsed amount, or a sentinel that no test expects when parsing failed.
int64_t Milli(std::string_view text) {
  absl::StatusOr<int64_t> v = ParseQuantity(text, Unit::kMilli);
  INFO("\"" << std::string(text) << "\": " << v.status().ToString());
  REQUIRE(v.ok());
  return *v;
}
int64_t Base(std::string_view text) {
  absl::StatusOr<int64_t> v = ParseQuantity(text, Unit::kBase);
  INFO("\"" << std::string(text) << "\": " << v.status().ToString());
  REQUIRE(v.ok());
  return *v;
}

TEST_CASE("ParseQuantity: plain numbers, fractions and signs", "[core][quantity]") {
  // CPU in millicores.
  CHECK(Milli("1") == 1000);
  CHECK(Milli("0") == 0);
  CHECK(Milli("2") == 2000);
  CHECK(Milli("500m") == 500);
  CHECK(Milli("1.5") == 1500);
  CHECK(Milli("0.1") == 100);  // exact: no floating point
  CHECK(Milli(".5") == 500);   // <number> ::= .<digits>
  CHECK(Milli("5.") == 5000);  // <number> ::= <digits>.
  CHECK(Milli("+1") == 1000);
  CHECK(Milli("-1") == -1000);
  CHECK(Milli("-0") == 0);
  CHECK(Milli("007") == 7000);
  CHECK(Milli("0.000") == 0);
  // Other resources in base units.
  CHECK(Base("1") == 1);
  CHECK(Base("123456789") == 123456789);
  CHECK(Base("1000m") == 1);
  CHECK(Base("-5") == -5);
}

TEST_CASE("ParseQuantity: decimal SI, binary SI and exponent suffixes", "[core][quantity]") {
  // Decimal SI: n u m "" k M G T P E.
  CHECK(Base("1k") == 1000);
  CHECK(Base("1M") == 1'000'000);
  CHECK(Base("1G") == 1'000'000'000);
  CHECK(Base("1T") == 1'000'000'000'000);
  CHECK(Base("1P") == 1'000'000'000'000'000);
  CHECK(Base("100M") == 100'000'000);
  CHECK(Milli("1k") == 1'000'000);
  CHECK(Milli("1000000n") == 1);  // 1e6 n = 1e-3 = 1 m
  CHECK(Milli("1000u") == 1);
  // Binary SI: Ki Mi Gi Ti Pi Ei.
  CHECK(Base("1Ki") == kKi);
  CHECK(Base("1Mi") == kMi);
  CHECK(Base("3Gi") == 3 * kGi);
  CHECK(Base("512Mi") == 512 * kMi);
  CHECK(Base("1Ti") == kGi * kKi);
  CHECK(Base("1Pi") == kGi * kMi);
  CHECK(Base("1Ei") == kEi);
  CHECK(Base("7Ei") == 7 * kEi);
  CHECK(Base("1.5Gi") == 3 * kGi / 2);
  CHECK(Base("0.5Ki") == 512);
  CHECK(Milli("1Ki") == 1024 * 1000);
  // Decimal exponents (e or E, optionally signed).
  CHECK(Base("1e3") == 1000);
  CHECK(Base("1E3") == 1000);
  CHECK(Base("1e+3") == 1000);
  CHECK(Base("12e-1") == 2);  // 1.2 rounds up
  CHECK(Milli("1e-3") == 1);
  CHECK(Milli("2.5e2") == 250'000);
  CHECK(Base("0e1000") == 0);
}

TEST_CASE("ParseQuantity: a lone E is the exa suffix, not an exponent", "[core][quantity]") {
  // suffix.go: the decimal table (which holds "E" = 10^18) is consulted before the exponent form,
  // and the exponent form needs at least one character after the e/E.
  CHECK(Base("1E") == 1'000'000'000'000'000'000);
  CHECK(Base("9E") == 9'000'000'000'000'000'000);
  CHECK_FALSE(ParseQuantity("10E", Unit::kBase).ok());  // 10^19 > int64
}

TEST_CASE("ParseQuantity: rounds up to the unit, away from zero", "[core][quantity]") {
  // CPU to the next millicore.
  CHECK(Milli("0.0001") == 1);
  CHECK(Milli("1.0001") == 1001);
  CHECK(Milli("1n") == 1);
  CHECK(Milli("100u") == 1);
  CHECK(Milli("1500u") == 2);
  CHECK(Milli("0.5m") == 1);
  CHECK(Milli("1e-30") == 1);
  CHECK(Milli("-1500u") == -2);  // Kubernetes rounds negative scaled values away from zero
  // Other resources to the next unit.
  CHECK(Base("1.5") == 2);  // docs/semantics.md §1.1: "1.5" memory is 2 bytes
  CHECK(Base("0.1") == 1);
  CHECK(Base("1m") == 1);
  CHECK(Base("1001m") == 2);
  CHECK(Base("1e-30") == 1);
  CHECK(Base("0.1Ki") == 103);  // 102.4
  CHECK(Base("-1.5") == -2);
  // Many digits far below the unit still only round up once.
  CHECK(Base("1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000001") == 2);
  CHECK(Base("2.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000") == 2);
}

TEST_CASE("ParseQuantity: the int64 range is the limit", "[core][quantity]") {
  CHECK(Base("9223372036854775807") == kUnlimited);
  CHECK(Base("-9223372036854775808") == kMinusUnlimited);
  CHECK(Milli("9223372036854775.807") == kUnlimited);
  CHECK(Milli("-9223372036854775.808") == kMinusUnlimited);
  for (std::string_view text : {"9223372036854775808", "-9223372036854775809", "1e30", "-1e30", "8Ei",
                                "100Ei", "1e1000000000"}) {
    INFO(text);
    const absl::StatusOr<int64_t> v = ParseQuantity(text, Unit::kBase);
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kOutOfRange);
    CHECK(v.status().message() == "\"" + std::string(text) + "\" is out of range");
  }
  for (std::string_view text : {"9223372036854775.808", "9223372036854775.8071", "9223372036854776", "100Ei",
                                "1e30", "10E"}) {
    INFO(text << " cpu");
    const absl::StatusOr<int64_t> v = ParseQuantity(text, Unit::kMilli);
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().code() == absl::StatusCode::kOutOfRange);
  }
}

TEST_CASE("ParseQuantity: malformed text is an error", "[core][quantity]") {
  for (std::string_view text :
       {"", "1x", "12x", "--1", "+-1", "1.2.3", "Ki", "1e", "1E+", "1e-", "1 Gi", " 1", "1 ", "1K", "1mi",
        "1KI", "1Ki5", "1e1.5", "1ee3", ".", "-", "+", "m", "1,5", "0x10", "1k1", "1Kib", "1e3Ki",
        "e3", "inf", "NaN"}) {
    INFO("\"" << std::string(text) << "\"");
    for (Unit unit : {Unit::kMilli, Unit::kBase}) {
      const absl::StatusOr<int64_t> v = ParseQuantity(text, unit);
      REQUIRE_FALSE(v.ok());
      CHECK(v.status().code() == absl::StatusCode::kInvalidArgument);
      CHECK(v.status().message() == "\"" + std::string(text) + "\" is not a quantity");
      const absl::StatusOr<int64_t> c = ParseQuantityClamped(text, unit);
      REQUIRE_FALSE(c.ok());
      CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST_CASE("ParseQuantityClamped: out-of-range values clamp to the int64 ends", "[core][quantity]") {
  CHECK(*ParseQuantityClamped("9223372036854775808", Unit::kBase) == kUnlimited);
  CHECK(*ParseQuantityClamped("1e30", Unit::kBase) == kUnlimited);
  CHECK(*ParseQuantityClamped("100Ei", Unit::kMilli) == kUnlimited);
  CHECK(*ParseQuantityClamped("9223372036854776", Unit::kMilli) == kUnlimited);
  CHECK(*ParseQuantityClamped("-1e30", Unit::kBase) == kMinusUnlimited);
  CHECK(*ParseQuantityClamped("-9223372036854775809", Unit::kBase) == kMinusUnlimited);
  // In range: the same as ParseQuantity.
  CHECK(*ParseQuantityClamped("1.5", Unit::kBase) == 2);
  CHECK(*ParseQuantityClamped("250m", Unit::kMilli) == 250);
  CHECK(*ParseQuantityClamped("9223372036854775807", Unit::kBase) == kUnlimited);
  CHECK(*ParseQuantityClamped("-3", Unit::kMilli) == -3000);
}

TEST_CASE("FormatAmount: Kubernetes' canonical form per resource (docs/semantics.md §1.1)", "[core][quantity]") {
  SECTION("cpu: a milli quantity in decimal SI") {
    CHECK(FormatAmount("cpu", 0) == "0");
    CHECK(FormatAmount("cpu", 1) == "1m");
    CHECK(FormatAmount("cpu", 100) == "100m");
    CHECK(FormatAmount("cpu", 1000) == "1");
    CHECK(FormatAmount("cpu", 1500) == "1500m");
    CHECK(FormatAmount("cpu", 2000) == "2");
    CHECK(FormatAmount("cpu", 10'000) == "10");
    CHECK(FormatAmount("cpu", 1'000'000) == "1k");
    CHECK(FormatAmount("cpu", 1'500'000) == "1500");
    CHECK(FormatAmount("cpu", 1'000'000'000) == "1M");
    CHECK(FormatAmount("cpu", -1500) == "-1500m");
    CHECK(FormatAmount("cpu", -2000) == "-2");
    CHECK(FormatAmount("cpu", kUnlimited) == "9223372036854775807m");
  }
  SECTION("memory-like resources: binary SI when exact and at least 1024, else decimal SI") {
    CHECK(FormatAmount("memory", 0) == "0");
    CHECK(FormatAmount("memory", 1) == "1");
    CHECK(FormatAmount("memory", 1000) == "1k");  // below 1024: decimal SI
    CHECK(FormatAmount("memory", 1023) == "1023");
    CHECK(FormatAmount("memory", 1024) == "1Ki");
    CHECK(FormatAmount("memory", 1536) == "1536");  // not a whole Ki
    CHECK(FormatAmount("memory", 2000) == "2000");  // >= 1024: binary SI form, no decimal suffix
    CHECK(FormatAmount("memory", 5 * kMi) == "5Mi");
    CHECK(FormatAmount("memory", kGi) == "1Gi");
    CHECK(FormatAmount("memory", 1536 * kKi) == "1536Ki");
    CHECK(FormatAmount("memory", 1000 * kKi) == "1000Ki");
    CHECK(FormatAmount("memory", kEi) == "1Ei");
    CHECK(FormatAmount("memory", -2048) == "-2Ki");
    CHECK(FormatAmount("ephemeral-storage", 10 * kGi) == "10Gi");
    CHECK(FormatAmount("hugepages-2Mi", 4 * kMi) == "4Mi");
    CHECK(FormatAmount("memory", kUnlimited) == "9223372036854775807");
  }
  SECTION("every other resource: decimal SI") {
    CHECK(FormatAmount("nvidia.com/gpu", 0) == "0");
    CHECK(FormatAmount("nvidia.com/gpu", 8) == "8");
    CHECK(FormatAmount("nvidia.com/gpu", 1000) == "1k");
    CHECK(FormatAmount("nvidia.com/gpu", 1024) == "1024");  // not binary: only memory-like is
    CHECK(FormatAmount("pods", 1500) == "1500");
    CHECK(FormatAmount("pods", 1'500'000) == "1500k");
    CHECK(FormatAmount("pods", 2'000'000) == "2M");
    CHECK(FormatAmount("example.com/x", 1'000'000'000'000'000'000) == "1E");
    CHECK(FormatAmount("example.com/x", kUnlimited) == "9223372036854775807");
  }
}

TEST_CASE("FormatLimit: unlimited prints as <unlimited>", "[core][quantity]") {
  CHECK(FormatLimit("cpu", kUnlimited) == "<unlimited>");
  CHECK(FormatLimit("memory", kUnlimited) == "<unlimited>");
  CHECK(FormatLimit("nvidia.com/gpu", kUnlimited) == "<unlimited>");
  CHECK(FormatLimit("cpu", kMinusUnlimited) == "-<unlimited>");
  CHECK(FormatLimit("cpu", 4000) == "4");
  CHECK(FormatLimit("memory", 2 * kGi) == "2Gi");
  CHECK(FormatLimit("cpu", kUnlimited - 1) == "9223372036854775806m");
}

TEST_CASE("FormatQuantityForManifest: always numeric, and parses back to the same amount", "[core][quantity]") {
  CHECK(FormatQuantityForManifest("cpu", kUnlimited) == "9223372036854775807m");
  CHECK(FormatQuantityForManifest("memory", 3 * kGi) == "3Gi");
  CHECK(FormatQuantityForManifest("cpu", 250) == "250m");
  for (const char* resource : {"cpu", "memory", "nvidia.com/gpu", "hugepages-1Gi"}) {
    for (int64_t amount : {int64_t{0}, int64_t{1}, int64_t{999}, int64_t{1000}, int64_t{1024}, int64_t{1536},
                           int64_t{123456789}, 5 * kMi, 7 * kEi, kUnlimited, int64_t{-4096}, kMinusUnlimited}) {
      const std::string text = FormatQuantityForManifest(resource, amount);
      INFO(resource << " " << amount << " -> " << text);
      const absl::StatusOr<int64_t> back = ParseQuantity(text, UnitForResource(resource));
      REQUIRE(back.ok());
      CHECK(*back == amount);
    }
  }
}

TEST_CASE("UnitForResource: cpu in millicores, everything else in base units", "[core][quantity]") {
  STATIC_REQUIRE(UnitForResource("cpu") == Unit::kMilli);
  STATIC_REQUIRE(UnitForResource("memory") == Unit::kBase);
  STATIC_REQUIRE(UnitForResource("nvidia.com/gpu") == Unit::kBase);
  STATIC_REQUIRE(UnitForResource("CPU") == Unit::kBase);  // resource names are case-sensitive
}

TEST_CASE("AddAmount: unlimited absorbs, finite sums saturate", "[core][quantity]") {
  STATIC_REQUIRE(AddAmount(3, 4) == 7);
  CHECK(AddAmount(-3, 1) == -2);
  CHECK(AddAmount(kUnlimited, 5) == kUnlimited);
  CHECK(AddAmount(5, kUnlimited) == kUnlimited);
  CHECK(AddAmount(kUnlimited, kUnlimited) == kUnlimited);
  CHECK(AddAmount(kUnlimited, -5) == kUnlimited);  // ∞ + x = ∞ for any x
  CHECK(AddAmount(kUnlimited - 1, 2) == kUnlimited);
  CHECK(AddAmount(kUnlimited - 10, 9) == kUnlimited - 1);
  CHECK(AddAmount(kMinusUnlimited, -1) == kMinusUnlimited);
  CHECK(AddAmount(kMinusUnlimited + 1, -5) == kMinusUnlimited);
  CHECK(AddAmount(kMinusUnlimited, 1) == kMinusUnlimited + 1);
}

TEST_CASE("SubAmount: ∞−x=∞, x−∞=−∞, ∞−∞=0, finite differences saturate", "[core][quantity]") {
  STATIC_REQUIRE(SubAmount(10, 4) == 6);
  CHECK(SubAmount(4, 10) == -6);
  CHECK(SubAmount(kUnlimited, 5) == kUnlimited);
  CHECK(SubAmount(kUnlimited, -5) == kUnlimited);
  CHECK(SubAmount(kUnlimited, kUnlimited) == 0);
  CHECK(SubAmount(5, kUnlimited) == kMinusUnlimited);
  CHECK(SubAmount(0, kUnlimited) == kMinusUnlimited);
  CHECK(SubAmount(kMinusUnlimited, 1) == kMinusUnlimited);
  CHECK(SubAmount(kUnlimited - 1, -2) == kUnlimited);
  CHECK(SubAmount(0, kMinusUnlimited) == kUnlimited);
  CHECK(SubAmount(-1, kMinusUnlimited) == kUnlimited);  // -1 + 2^63 = INT64_MAX exactly
}

TEST_CASE("MulAmount: products saturate at the int64 ends", "[core][quantity]") {
  STATIC_REQUIRE(MulAmount(3, 4) == 12);
  CHECK(MulAmount(1500, 0) == 0);
  CHECK(MulAmount(0, 1'000'000) == 0);
  CHECK(MulAmount(kUnlimited, 1) == kUnlimited);
  CHECK(MulAmount(kUnlimited, 2) == kUnlimited);
  CHECK(MulAmount(kUnlimited, 0) == 0);
  CHECK(MulAmount(int64_t{1} << 62, 2) == kUnlimited);
  CHECK(MulAmount(-(int64_t{1} << 62), 3) == kMinusUnlimited);
  CHECK(MulAmount(kGi, 8) == 8 * kGi);
  CHECK(MulAmount(4 * kEi, 2) == kUnlimited);  // 2^63
}

}  // namespace
}  // namespace quantity_test
}  // namespace qm
