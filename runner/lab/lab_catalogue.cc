#include "runner/lab/lab_catalogue.h"

#include <filesystem>

#include "common/input_error.h"

namespace fabriclab::runner {

std::string CatalogueEntry::id() const {
  return lab ? lab->id : folder.substr(0, folder.find('-'));
}

std::vector<CatalogueEntry> load_every_lab(const std::string& labs_dir) {
  std::vector<CatalogueEntry> entries;
  for (const std::string& file : list_lab_files(labs_dir)) {
    CatalogueEntry entry{file, std::filesystem::path(file).parent_path().filename().string(),
                         std::nullopt, ""};
    // Only bad input is caught: any other failure is the machine's, not the lab's.
    try {
      entry.lab = load_lab(file);
    } catch (const InputError& e) {
      entry.error = e.what();
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace fabriclab::runner
