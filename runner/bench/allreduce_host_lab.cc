#include "runner/bench/allreduce_host_lab.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>

namespace fabriclab::runner::bench {
namespace {

// A TOML basic string. The words come checked (an algorithm's name, tc-netem
// words parse_spec() took, rank words), but quoting them costs nothing.
std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// FNV-1a, 32 bits: a short, stable fingerprint of the lab's text.
std::string fingerprint(const std::string& text) {
  uint32_t hash = 2166136261u;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  return fmt::format("{:08x}", hash);
}

std::string links_array(const std::vector<std::string>& links) {
  std::string out;
  for (const std::string& l : links) out += (out.empty() ? "" : ", ") + toml_string(l);
  return "[" + out + "]";
}

}  // namespace

HostBenchLab allreduce_host_lab(const AllreduceBenchOptions& o, int ranks) {
  // Everything but the scenario's name, which is made from it.
  std::string body;
  body += "[workload]\n";
  body += "kind = \"allreduce\"\n";
  body += "transport = " + toml_string(o.transport) + "\n";
  body += fmt::format("minbytes = {}\nmaxbytes = {}\nstepfactor = {}\n", o.min_bytes, o.max_bytes,
                      o.step_factor);
  body += fmt::format("iters = {}\nwarmup_iters = {}\ncheck = {}\nchannels = {}\n", o.iters,
                      o.warmup, o.check, o.channels);
  body += "algorithm = " + toml_string(o.algorithm) + "\n";
  body += fmt::format("timeout_s = {}\n\n", o.timeout_s);
  body += fmt::format("[topology]\nranks = {}\n\n", ranks);
  body += "[report]\ncharts = []\ntables = []\n\n";
  body += "[[scenario]]\n";
  body += "condition = " + toml_string(o.impair.empty() ? "clean link" : o.impair) + "\n";
  if (!o.impair.empty()) {
    body += "impair = " + toml_string(o.impair) + "\n";
    body += "links = " + links_array(o.links) + "\n";
  }
  // The limits count from launch: the ranks' start is in them.
  body += fmt::format("deadline_s = {}\nstall_s = {}\n", o.timeout_s, o.timeout_s);

  HostBenchLab lab;
  lab.scenario = "allreduce-" + o.transport + "-" + fingerprint(body);
  lab.toml =
      "# Written by `fabriclab bench allreduce --hosts` from its flags\n"
      "# (runner/bench/allreduce_host_lab.h); run by host mode like any lab.\n"
      "[lab]\n"
      "id = \"bench\"\n"
      "title = \"fabriclab bench allreduce --hosts\"\n"
      "summary = \"nccl-tests' all_reduce_perf across the hosts, over Gloo's " +
      std::string(o.transport == "roce" ? "ibverbs (RoCE)" : "TCP") + " transport\"\n\n";
  // The name closes the [[scenario]] table the body opened last: it is made
  // from everything above it.
  lab.toml += body;
  lab.toml += "name = " + toml_string(lab.scenario) + "\n";
  return lab;
}

std::vector<AllreduceRow> allreduce_rows_from_events(const std::vector<nlohmann::json>& events,
                                                     const std::string& scenario,
                                                     int* ranks_seen) {
  // size -> rank -> that rank's step event of the size
  std::map<int64_t, std::map<int, const nlohmann::json*>> steps;
  std::map<int, bool> ranks;
  for (const nlohmann::json& e : events) {
    if (e.value("event", "") != "step" || e.value("scenario", "") != scenario) continue;
    if (!e.contains("size") || !e.contains("time_us")) continue;  // not the allreduce's
    const int rank = e.value("rank", -1);
    steps[e["size"].get<int64_t>()][rank] = &e;
    ranks[rank] = true;
  }
  if (ranks_seen) *ranks_seen = static_cast<int>(ranks.size());
  std::vector<AllreduceRow> rows;
  for (const auto& [size, by_rank] : steps) {
    AllreduceRow row;
    row.size_bytes = size;
    row.count = size / 4;
    for (const auto& [rank, e] : by_rank) {
      row.count = e->value("count", row.count);
      for (auto [prefix, place] : {std::pair{"", &row.out_of_place}, std::pair{"ip_", &row.in_place}}) {
        place->time_us += e->value(std::string(prefix) + "time_us", 0.0) / by_rank.size();
        const int64_t wrong = e->value(std::string(prefix) + "wrong", int64_t{-1});
        place->wrong = wrong < 0 ? -1 : std::max<int64_t>(place->wrong, 0) + wrong;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace fabriclab::runner::bench
