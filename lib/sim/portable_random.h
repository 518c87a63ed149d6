// Seeded random sources and the few distributions the trace generator needs, written out so the
// same seed gives the same numbers with every compiler and standard library (<random>'s
// distributions are implementation-defined, and libm's exp/log/sin may differ in the last bit
// between C libraries). Private to lib/sim.
//
// Everything here uses only IEEE-754 double +, -, *, / and sqrt, which are correctly rounded on
// every platform we build for; the file is compiled with -ffp-contract=off (CMakeLists.txt) so
// no compiler fuses a multiply and an add into an FMA with a different rounding.
#ifndef QM_LIB_SIM_PORTABLE_RANDOM_H_
#define QM_LIB_SIM_PORTABLE_RANDOM_H_

#include <cstdint>

#include "qm/core/split_mix64.h"

namespace qm::sim::internal {

/// SplitMix64 (qm/core/split_mix64.h) seeds `Random`, and draws the simulator's random node
/// failures (simulation_faults.cc).
using qm::SplitMix64;

/// xoshiro256** (Blackman and Vigna), seeded through SplitMix64 as its authors recommend.
class Random {
 public:
  explicit Random(uint64_t seed);
  uint64_t Next();
  /// Uniform in [0, 1), with 53 random bits.
  double Uniform();
  /// Uniform in (0, 1]: safe to take the logarithm of.
  double UniformPositive() { return 1.0 - Uniform(); }
  /// Standard normal (Marsaglia's polar method; the second value of each pair is dropped so that
  /// every call consumes a self-contained run of draws).
  double Normal();

 private:
  uint64_t s_[4];
};

/// Natural logarithm of x > 0 (argument reduction by frexp, then the atanh series).
double PortableLog(double x);
/// e^x; 0 below -745, +infinity above 709.
double PortableExp(double x);
/// sin(2π·phase) for phase in [0, 1).
double PortableSinTwoPi(double phase);

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_PORTABLE_RANDOM_H_
