// The generic grid sweep: one row per point, one column per recorded metric.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "papers/report/common.hpp"
#include "papers/report/sweeps.hpp"

namespace retrylab::papers::report {

void render_grid(const StudyData& d, std::size_t si, Out& out) {
  const SweepSpec& sw = d.spec.sweeps[si];
  const auto& recs = d.records[si];
  Table t{sw.name, sw.title, {"scenario"}, {}, {}};
  std::vector<std::string> ms;
  if (!recs.empty())
    for (const auto& [k, v] : recs.front().at("summary").items()) ms.push_back(k);
  for (const auto& m : ms) t.columns.push_back(m);
  for (std::size_t i = 0; i < sw.points.size(); ++i) {
    std::vector<Cell> row = {canonical(sw.points[i], sw.kind)};
    for (const auto& m : ms) {
      const json& j = metric(recs[i], m);
      row.push_back(j.contains("fraction") ? Cell(jnum(j.at("fraction"))) : Cell(est_of(recs[i], m)));
    }
    t.rows.push_back(std::move(row));
  }
  out.table(t);
}

}  // namespace retrylab::papers::report
