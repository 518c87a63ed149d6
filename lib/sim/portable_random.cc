// Portable random numbers and elementary functions (portable_random.h).
#include "sim/portable_random.h"

#include <cmath>
#include <limits>

namespace qm::sim::internal {
namespace {

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// ln 2 split so that k·kLn2Hi is exact for the k PortableExp meets (Cody and Waite).
constexpr double kLn2 = 0.6931471805599453094;
constexpr double kLn2Hi = 0.693147180369123816490;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kHalfPi = 1.5707963267948966192;

}  // namespace

Random::Random(uint64_t seed) {
  SplitMix64 mix(seed);
  for (uint64_t& s : s_) s = mix.Next();
}

uint64_t Random::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double Random::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double Random::Normal() {
  while (true) {
    const double u = 2.0 * Uniform() - 1.0;
    const double v = 2.0 * Uniform() - 1.0;
    const double s = u * u + v * v;
    if (s >= 1.0 || s == 0.0) continue;
    return u * std::sqrt(-2.0 * PortableLog(s) / s);
  }
}

double PortableLog(double x) {
  // x = m·2^e with m in [√½, √2); ln m = 2·atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.172.
  int e = 0;
  double m = std::frexp(x, &e);  // exact: m in [½, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --e;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  // 2s·Σ z^k/(2k+1), k = 0..11: the omitted terms are below 10⁻¹⁹.
  double series = 1.0 / 23.0;
  for (int k = 10; k >= 0; --k) series = series * z + 1.0 / (2.0 * k + 1.0);
  return static_cast<double>(e) * kLn2 + 2.0 * s * series;
}

double PortableExp(double x) {
  if (x < -745.0) return 0.0;
  if (x > 709.0) return std::numeric_limits<double>::infinity();
  // x = k·ln 2 + r with |r| ≤ ½ ln 2; e^r by its Taylor series to r¹⁴/14!.
  const double k = std::floor(x / kLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double sum = 1.0;
  for (int n = 14; n >= 1; --n) sum = 1.0 + sum * r / static_cast<double>(n);
  return std::ldexp(sum, static_cast<int>(k));
}

double PortableSinTwoPi(double phase) {
  // Quadrant q and the angle θ within it, in [0, π/2); sin and cos of θ by Taylor series.
  const double quarters = phase * 4.0;  // exact
  const double q = std::floor(quarters);
  const double theta = (quarters - q) * kHalfPi;
  const double t2 = theta * theta;
  double sin_series = 1.0, cos_series = 1.0;
  for (int n = 23; n >= 3; n -= 2) sin_series = 1.0 - sin_series * t2 / static_cast<double>(n * (n - 1));
  for (int n = 22; n >= 2; n -= 2) cos_series = 1.0 - cos_series * t2 / static_cast<double>(n * (n - 1));
  const double sin_theta = theta * sin_series;
  switch (static_cast<int>(q) & 3) {
    case 0: return sin_theta;
    case 1: return cos_series;
    case 2: return -sin_theta;
    default: return -cos_series;
  }
}

}  // namespace qm::sim::internal
