// Where a swept curve first reaches a level: lab 07's "the loss rate at which
// step time doubles", read off the student's own points. Shared by the
// grader's `sweep.NAME.result.FIELD@reaches=L` values (labs/SCHEMA.md) and
// anything that prints the same number, so both agree.
//
// points: (x, y) in ascending x (a sweep's values and each point's result).
// The first point with y >= level: if it is the first point, its x; else
// the x where the straight line between it and the point before crosses the
// level (linear interpolation). nullopt when no point reaches the level --
// never extrapolated. Pure function.
#pragma once

#include <optional>
#include <utility>
#include <vector>

namespace fabriclab {

inline std::optional<double> first_crossing(const std::vector<std::pair<double, double>>& points,
                                            double level) {
  for (size_t i = 0; i < points.size(); ++i) {
    const auto [x1, y1] = points[i];
    if (y1 < level) continue;
    if (i == 0) return x1;
    const auto [x0, y0] = points[i - 1];
    return x0 + (level - y0) * (x1 - x0) / (y1 - y0);  // y0 < level <= y1: no division by 0
  }
  return std::nullopt;
}

}  // namespace fabriclab
