// A lab as data: labs/NN-name/lab.toml (schema: labs/SCHEMA.md). The one
// lab model: `fabriclab run`, host mode and the grader all read a lab
// through load_lab(), and get the same validated LabDefinition.
//
// load_lab() validates everything a run or a grade needs before anything is
// created: every key's type and range, every plug-in name against its
// registry (workload kind, fabric kind, chart names, per-link settings), the
// workload's parameters, unique scenario names, link references inside the
// fabric, and every exercise (exercise_reader.h). Errors are InputError
// "path:line: key 'x': expected ..." (exit 2).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runner/lab/exercise.h"
#include "runner/workload/workload.h"

namespace fabriclab::runner {

// `[[scenario.override]]`: settings on some of a scenario's links, replacing
// the scenario's own (and earlier overrides') on the links it names
// (link_plan.h resolves them with the run's seed).
struct LinkOverride {
  std::vector<std::string> links;                     // as written: "r1", "seed:slow_rank"
  std::map<std::string, std::string> link_settings;   // {"impair": "rate 100mbit"}
};

struct ScenarioDefinition {
  std::string name;                      // [a-z0-9_-]+
  std::string condition;                 // human words for the table
  // Per-link settings by their lab.toml key (runner/scenario/link_setting.h),
  // applied to `links` for the scenario: {"impair": "delay 100ms"}.
  std::map<std::string, std::string> link_settings;
  // The job runs on ranks 0 .. ranks-1 of the lab network (`ranks = N`,
  // default: all of them); the other ranks' hosts stay idle.
  int ranks = 0;
  std::vector<int> link_ranks;           // whose traffic is impaired (all the scenario's ranks for "all";
                                         // "seed:" words only at run time: link_plan.h)
  std::vector<std::string> links;        // as written: "all", "r1", "seed:slow_rank", ...
  std::vector<LinkOverride> overrides;   // in lab.toml's order; later ones win
  double deadline_s = 120;
  double stall_s = 20;
  // `workload = { batch = 2432, steps = 8 }`: parameters this scenario runs
  // with instead of the lab's (as written), and the lab's workload with them
  // applied -- what its ranks run.
  std::map<std::string, std::string> workload_overrides;
  WorkloadDefinition workload;
  // The scenario its slowdown ("x clean") is measured against: "clean" (else
  // the lab's first scenario) unless it says; "" = none (a scenario with its
  // own workload and no `baseline`: another job is no yardstick).
  std::string baseline;

  // The `impair` setting's tc-netem words, "" = none.
  std::string impair() const;
  // Every (key, value) it sets on some link, its own and its overrides'.
  std::vector<std::pair<std::string, std::string>> every_link_setting() const;
};

// The lab network's shape (runner/topology/fabric.h): a fabric kind by name,
// drawn for `ranks` ranks.
struct FabricDefinition {
  std::string kind = "auto";  // auto | single | pair | switch
  int ranks = 2;              // 1 .. 64
  // False: MTU-sized frames on the lab links (topology.h says why).
  bool segmentation_offload = true;
  // Kernel settings of every rank's namespace for the whole lab, in the
  // `sysctl` setting's words ("net.ipv4.tcp_congestion_control=reno ...");
  // "" = the kernel's defaults. A scenario's own `sysctl` overrides them.
  std::string sysctl;
};

struct LabDefinition {
  std::string id;        // "02"
  std::string name;      // folder name, "02-dropped-packet"
  std::string dir;       // folder path
  std::string path;      // lab.toml path
  std::string title;
  std::string summary;
  int ranks = 2;         // = fabric.ranks
  FabricDefinition fabric;
  WorkloadDefinition workload;  // [workload] (or the older [trainer]: kind train)
  // Charts the report draws (runner/report/chart_kind.h), in order.
  std::vector<std::string> charts;
  // Tables printed after the summary (runner/report/table_kind.h), in order.
  std::vector<std::string> tables;
  std::vector<ScenarioDefinition> scenarios;
  std::vector<Exercise> exercises;

  std::vector<std::string> scenario_names() const;
};

// Reads and validates `lab_toml`. `quick` applies the [quick] overrides.
LabDefinition load_lab(const std::string& lab_toml, bool quick = false);

// Parameters of the lab's model (workload.h), for from = "lab" exercises.
int64_t lab_model_params(const LabDefinition& lab);

// The folder where labs live: $FABRICLAB_LABS, else labs/ beside the
// binary's build tree or install prefix, else the source tree's labs/.
std::string default_labs_dir();

// Every NN-name folder with a lab.toml under `labs_dir`, by number.
std::vector<std::string> list_lab_files(const std::string& labs_dir);

// "02", "2" or "02-dropped-packet" -> that lab's lab.toml; InputError naming
// the labs that exist when there is no such lab.
std::string find_lab_file(const std::string& labs_dir, const std::string& which);

}  // namespace fabriclab::runner
