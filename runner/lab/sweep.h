// `[[sweep]]`: one setting swept over a list of values, written once in a
// lab.toml and expanded into one ordinary `[[scenario]]` per value
// (labs/SCHEMA.md, "Sweeps"). Nothing at run time knows about sweeps: each
// point is a scenario like any other, which carries its sweep's name and its
// value so the report (the `sweep` chart) and the grader (`sweep.NAME...`
// values) can line the points up.
//
//   [[sweep]]
//   name = "loss"                    # points are named loss-0, loss-0p1, ...
//   values = [0, 0.1, 0.5, 1, 2, 5]  # ascending, distinct, >= 0
//   impair = "loss {}%"              # any per-link setting; {} = the value
//   sysctl = "net.ipv4.tcp_sack=0"   # others without {}: the same at every point
//   links = ["seed:lossy_rank"]
//   baseline = 0                     # the point the others' slowdowns are against (default: the
//   first)
//
// Errors are InputError "path:line: key 'x': ..." at the sweep's own lines
// (exit 2), found before anything runs: every value is put into the
// template and parsed as that setting parses it -- once: the points carry
// the parsed settings to the lab reader.
#pragma once

#include <toml++/toml.h>

#include <map>
#include <string>
#include <vector>

#include "runner/link/setting_value.h"

namespace fabriclab::runner {

// One point of a sweep: the `[[scenario]]` table it stands for, ready for
// the lab reader, its per-link settings already parsed, and where it came
// from. The settings are parsed here, once, where an error can name the
// sweep's line; the table leaves them out (it has no lines of its own).
struct SweepPoint {
  toml::table scenario;
  std::map<std::string, SettingValue> link_settings;  // {"impair": "loss 0.5%", parsed}
  std::string sweep;  // the sweep's name
  double value = 0;
};

// Every `[[sweep]]` of `root` (the lab file at `path`), in order, each
// point in its values' order; `ranks`: the lab's, for its links.
std::vector<SweepPoint> expand_sweeps(const std::string& path, const toml::table& root, int ranks);

// The value as written in names and settings: 0.5 -> "0.5", 5 -> "5".
std::string sweep_value_text(double value);
// A point's scenario name: ("loss", 0.5) -> "loss-0p5" (a scenario name may
// not hold a dot: grader paths are dotted).
std::string sweep_scenario_name(const std::string& sweep, double value);

}  // namespace fabriclab::runner
