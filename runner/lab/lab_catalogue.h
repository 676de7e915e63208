// Every lab under a labs folder, each loaded on its own: a lab.toml that
// does not load is kept with its InputError's message ("path:line: ...")
// instead of ending the walk, so `fabriclab list` and `fabriclab progress`
// show the good labs and then say which ones are broken and where.
//
// Contract: load_every_lab() throws InputError only when `labs_dir` is not a
// folder it can read (list_lab_files()); one entry per NN-name folder with a
// lab.toml, by number.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/lab/lab_definition.h"

namespace fabriclab::runner {

struct CatalogueEntry {
  std::string file;                  // its lab.toml
  std::string folder;                // "02-dropped-packet"
  std::optional<LabDefinition> lab;  // nullopt: it did not load
  std::string error;                 // why, when it did not

  std::string id() const;  // lab->id, else the folder's number
};

std::vector<CatalogueEntry> load_every_lab(const std::string& labs_dir);

}  // namespace fabriclab::runner
