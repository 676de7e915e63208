#include "runner/rundir/run_writer.h"

#include <filesystem>

namespace fabriclab::runner::rundir {

RunWriter::RunWriter(std::string dir) : dir_(std::move(dir)) {
  std::filesystem::create_directories(dir_);
  metrics_.open(dir_ + "/" + kMetricsFile);
  manifest_ = {{"format", kRunFormatName},
               {"version", kRunFormatVersion},
               {"scenarios", nlohmann::json::array()}};
}

std::string RunWriter::session_cast_path() const { return dir_ + "/" + kSessionCastFile; }

void RunWriter::append_events(const std::vector<nlohmann::json>& events) {
  for (const auto& event : events) metrics_ << event.dump() << "\n";
  metrics_.flush();
}

void RunWriter::close_metrics() { metrics_.close(); }

void RunWriter::add_scenario(const ScenarioEntry& e) {
  manifest_["scenarios"].push_back(
      {{"name", e.name},
       {"condition", e.condition},
       {"impairments", {{{"links", e.links}, {"spec", e.spec}, {"applied", e.applied}}}},
       {"status", e.status},
       {"message", e.message},
       {"started_unix_s", e.started_unix_s},
       {"ended_unix_s", e.ended_unix_s},
       {"steps_planned", e.steps_planned},
       {"steps_completed", e.steps_completed},
       {"workload", e.workload},
       {"baseline", e.baseline.empty() ? nlohmann::json() : nlohmann::json(e.baseline)},
       {"ranks", e.ranks}});
  nlohmann::json& added = manifest_["scenarios"].back();
  if (e.impairments.is_array() && !e.impairments.empty()) added["impairments"] = e.impairments;
  if (!e.link_picks.empty()) added["link_picks"] = e.link_picks;
  if (e.sweep.is_object()) added["sweep"] = e.sweep;
  if (!e.placement.empty()) added["placement"] = e.placement;
}

void RunWriter::write_manifest() const {
  const std::string path = dir_ + "/" + kManifestFile;
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp);
    out << manifest_.dump(2) << "\n";
  }
  std::filesystem::rename(temp, path);
}

}  // namespace fabriclab::runner::rundir
