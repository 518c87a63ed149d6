// Forecast options as YAML/JSON text (qm/io/forecast_options.h).
#include "qm/io/forecast_options.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "io/object_reader.h"
#include "io/yaml_cursor.h"
#include "qm/model/namespace_name.h"
#include "qm/text/time_text.h"
#include "text/yaml_load.h"

namespace qm {
namespace {

using internal::Cursor;

// A duration or a list of them; positive.
RuntimeEstimate ReadEstimate(const Cursor& c) {
  RuntimeEstimate e;
  std::vector<Cursor> items;
  if (c.is_sequence()) items = c.Items();
  else items.push_back(c);
  for (const Cursor& item : items) {
    const std::string text = item.RequiredString();
    if (!item.ctx().ok()) break;
    absl::StatusOr<Duration> d = ParseGoDuration(text);
    if (!d.ok() || d->us <= 0) {
      item.Fail("\"" + text + "\" is not a positive duration (Go syntax: 90m, 2h30m)");
      break;
    }
    e.samples.push_back(*d);
  }
  if (e.samples.empty() && c.ctx().ok()) c.Fail("must have at least one duration");
  return e;
}

WorkloadHandle ReadWorkload(const Cursor& c, const std::string& name, const Engine& engine) {
  const auto [ns, n] = SplitNamespacedName(name);
  const WorkloadHandle h = engine.FindWorkload(ns, n);
  if (!h.valid()) c.Fail("no workload '" + name + "'");
  return h;
}

}  // namespace

absl::StatusOr<ForecastOptions> ReadForecastOptions(std::string_view text, std::string_view source_name,
                                                    const Engine& engine) {
  ForecastOptions o;
  std::vector<YAML::Node> docs;
  QM_RETURN_IF_ERROR(internal::LoadYamlDocuments(text, source_name, &docs));
  if (docs.empty()) return o;
  if (docs.size() > 1) return absl::InvalidArgumentError(std::string(source_name) + ": expected one document");
  internal::LoadContext ctx{std::string(source_name)};
  const Cursor root = Cursor::Root(&ctx, docs[0]);
  if (!root.ExpectMap()) return ctx.status().ok() ? absl::InvalidArgumentError(std::string(source_name) + ": expected a map") : ctx.status();
  root.CheckKeys({"workloads", "defaultRuntime", "queueRuntimes", "workloadRuntimes", "runs", "seed", "horizon",
                  "arrivals"});
  for (const Cursor& w : root["workloads"].Items()) {
    const std::string name = w.RequiredString();
    if (!ctx.ok()) break;
    o.workloads.push_back(ReadWorkload(w, name, engine));
  }
  if (root["defaultRuntime"].present()) o.default_runtime = ReadEstimate(root["defaultRuntime"]);
  for (const auto& [cq, c] : root["queueRuntimes"].Entries()) o.queue_runtimes.push_back(QueueRuntime{cq, ReadEstimate(c)});
  for (const auto& [name, c] : root["workloadRuntimes"].Entries()) {
    const WorkloadHandle h = ReadWorkload(c, name, engine);
    o.workload_runtimes.push_back(WorkloadRuntime{h, ReadEstimate(c)});
  }
  if (std::optional<int64_t> runs = root["runs"].OptInt(0, 100000)) o.runs = static_cast<int>(*runs);
  if (std::optional<int64_t> seed = root["seed"].OptInt(0, INT64_MAX)) o.seed = static_cast<uint64_t>(*seed);
  if (const Cursor h = root["horizon"]; h.present()) {
    const std::string t = h.RequiredString();
    absl::StatusOr<Duration> d = ParseGoDuration(t);
    if (ctx.ok() && (!d.ok() || d->us <= 0)) h.Fail("\"" + t + "\" is not a positive duration");
    else if (d.ok()) o.horizon = *d;
  }
  for (const Cursor& a : root["arrivals"].Items()) {
    if (!a.ExpectMap()) break;
    a.CheckKeys({"perHour", "runtime", "workload"});
    ForecastArrivals arrivals;
    const std::string rate = a["perHour"].RequiredString();
    double per_hour = 0;
    if (ctx.ok() && (!absl::SimpleAtod(rate, &per_hour) || !(per_hour > 0) || !std::isfinite(per_hour)))
      a["perHour"].Fail("\"" + rate + "\" is not a number more than 0");
    arrivals.per_hour = per_hour;
    if (a["runtime"].present()) arrivals.runtime = ReadEstimate(a["runtime"]);
    // The template: a Kueue Workload (its metadata.name is the copies' name prefix).
    const Cursor w = a["workload"];
    if (!w.present()) w.Fail("is required");
    if (!ctx.ok() || !w.ExpectMap()) break;
    internal::ObjectHeader header;
    header.name = w["metadata"]["name"].RequiredString();
    header.namespace_ = w["metadata"]["namespace"].OptString().value_or("default");
    arrivals.workload = internal::ReadWorkload(w, header);
    if (!ctx.ok()) break;
    o.arrivals.push_back(std::move(arrivals));
  }
  if (!ctx.ok()) return ctx.status();
  return o;
}

}  // namespace qm
