// Time-weighted series over an unknown run length (private to lib/sim).
//
// A simulation does not know when it will end, so `TimeBuckets` starts with 1-second buckets and
// doubles their width (merging neighbours) whenever a value lands past its capacity; at the end
// `Rebin` groups them into at most `target` equal buckets. Every value is accumulated as
// value × overlap, so a bucket's average is exact whatever the rebinning.
#ifndef QM_LIB_SIM_TIME_BUCKETS_H_
#define QM_LIB_SIM_TIME_BUCKETS_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace qm::sim::internal {

class TimeBuckets {
 public:
  /// `series` independent series; capacity 4 × `target` fine buckets before a doubling.
  TimeBuckets(int series, int target)
      : series_(series), target_(std::max(1, target)), capacity_(4 * std::max(1, target)),
        sums_(static_cast<size_t>(series) * static_cast<size_t>(capacity_), 0.0) {}

  int series() const { return series_; }

  /// Adds an empty series (e.g. for a pair of queues first seen mid-run); returns its index.
  int AddSeries() {
    sums_.resize(sums_.size() + static_cast<size_t>(capacity_), 0.0);
    return series_++;
  }

  /// Adds `value` held over [t0, t1) (µs from the start) to series `s`.
  void Add(int s, int64_t t0, int64_t t1, double value) {
    if (t1 <= t0 || value == 0) return;
    Fit(t1);
    int64_t b = t0 / width_;
    while (b * width_ < t1) {
      const int64_t lo = std::max(t0, b * width_);
      const int64_t hi = std::min(t1, (b + 1) * width_);
      sums_[Index(s, b)] += value * static_cast<double>(hi - lo);
      ++b;
    }
  }
  /// Adds a point amount at time `t` (counts such as preemptions).
  void Count(int s, int64_t t, double amount) {
    Fit(t + 1);
    sums_[Index(s, t / width_)] += amount;
  }

  /// The series grouped into at most `target` equal buckets covering [0, end): the width and, per
  /// series, the bucket sums. Time-weighted series divide by the part of each bucket before `end`.
  struct Rebinned {
    int64_t width_us = 0;
    int buckets = 0;
    std::vector<std::vector<double>> sums;  ///< [series][bucket]
    std::vector<double> covered_us;         ///< [bucket] the part of the bucket before `end`
  };
  Rebinned Rebin(int64_t end) {
    Fit(std::max<int64_t>(end, 1));
    const int64_t fine_used = std::max<int64_t>(1, (end + width_ - 1) / width_);
    const int64_t group = (fine_used + target_ - 1) / target_;
    Rebinned r;
    r.width_us = width_ * group;
    r.buckets = static_cast<int>((fine_used + group - 1) / group);
    r.sums.assign(static_cast<size_t>(series_), std::vector<double>(static_cast<size_t>(r.buckets), 0.0));
    r.covered_us.assign(static_cast<size_t>(r.buckets), 0.0);
    for (int b = 0; b < r.buckets; ++b) {
      const int64_t lo = b * r.width_us;
      r.covered_us[static_cast<size_t>(b)] = static_cast<double>(std::min(end, lo + r.width_us) - lo);
    }
    for (int s = 0; s < series_; ++s) {
      for (int64_t f = 0; f < fine_used; ++f) {
        r.sums[static_cast<size_t>(s)][static_cast<size_t>(f / group)] += sums_[Index(s, f)];
      }
    }
    return r;
  }

 private:
  size_t Index(int s, int64_t bucket) const {
    return static_cast<size_t>(s) * static_cast<size_t>(capacity_) + static_cast<size_t>(bucket);
  }
  // Doubles the bucket width until [0, t) fits.
  void Fit(int64_t t) {
    while (t > width_ * capacity_) {
      for (int s = 0; s < series_; ++s) {
        for (int b = 0; b < capacity_ / 2; ++b) {
          sums_[Index(s, b)] = sums_[Index(s, 2 * b)] + sums_[Index(s, 2 * b + 1)];
        }
        for (int b = capacity_ / 2; b < capacity_; ++b) sums_[Index(s, b)] = 0;
      }
      width_ *= 2;
    }
  }

  int series_;
  int target_;
  int capacity_;
  int64_t width_ = 1'000'000;  // 1 s
  std::vector<double> sums_;   // [series][fine bucket]
};

}  // namespace qm::sim::internal

#endif  // QM_LIB_SIM_TIME_BUCKETS_H_
