// A lab as data: labs/NN-name/lab.toml (schema: labs/SCHEMA.md).
//
// load_lab() validates everything a run needs before anything is created:
// every key's type and range, every impairment spec (parsed with the
// netem parser), unique scenario names, rank references inside the topology.
// Errors are InputError "path:line: key 'x': expected ..." (exit 2).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "netem/spec.h"

namespace fabriclab::runner {

struct ScenarioDefinition {
  std::string name;                      // [a-z0-9_-]+
  std::string condition;                 // human words for the table
  std::string impair;                    // tc-netem words, "" = none
  std::optional<netem::Spec> spec;       // parsed `impair`
  std::vector<int> link_ranks;           // whose egress is impaired (all ranks for "all")
  std::vector<std::string> links;        // as written: "all", "r1", ...
  double deadline_s = 120;
  double stall_s = 20;
};

struct LabDefinition {
  std::string id;        // "02"
  std::string name;      // folder name, "02-dropped-packet"
  std::string dir;       // folder path
  std::string path;      // lab.toml path
  std::string title;
  std::string summary;
  int ranks = 2;
  // [trainer] as `fabriclab train` flags: key "width" -> "--width 128".
  std::map<std::string, std::string> trainer;
  std::vector<ScenarioDefinition> scenarios;
};

// Reads and validates `lab_toml`. `quick` applies the [quick] overrides.
LabDefinition load_lab(const std::string& lab_toml, bool quick = false);

// The folder where labs live: $FABRICLAB_LABS, else labs/ beside the
// binary's build tree or install prefix, else the source tree's labs/.
std::string default_labs_dir();

// Every NN-name folder with a lab.toml under `labs_dir`, by number.
std::vector<std::string> list_lab_files(const std::string& labs_dir);

// "02", "2" or "02-dropped-packet" -> that lab's lab.toml; InputError naming
// the labs that exist when there is no such lab.
std::string find_lab_file(const std::string& labs_dir, const std::string& which);

// The trainer flags in the order `fabriclab train` takes them.
std::vector<std::string> trainer_arguments(const LabDefinition& lab);

}  // namespace fabriclab::runner
