#include "runner/workload/command_workload.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "common/input_error.h"

namespace fabriclab::runner {

namespace {

class CommandWorkload : public Workload {
 public:
  const char* name() const override { return "command"; }

  const std::map<std::string, ParamKind>& params() const override {
    static const std::map<std::string, ParamKind> keys = {{"command", ParamKind::kArgv},
                                                          {"steps", ParamKind::kInteger}};
    return keys;
  }

  std::vector<std::string> rank_command(const WorkloadDefinition& workload,
                                        const std::string& metrics_path) const override {
    std::vector<std::string> argv = {"job", "--metrics", metrics_path, "--steps",
                                     workload.param("steps", "0"), "--"};
    for (std::string& arg : argv_of(workload.param("command"))) argv.push_back(std::move(arg));
    return argv;
  }

  void check(const WorkloadDefinition& workload) const override {
    if (workload.param("command").empty())
      throw std::invalid_argument(
          "command is required for kind \"command\": the argv each rank runs, e.g. "
          "[\"python3\", \"train.py\"]");
  }

  int64_t planned_steps(const WorkloadDefinition& workload) const override {
    return std::stoll(workload.param("steps", "0"));
  }

  int64_t model_params(const WorkloadDefinition&) const override {
    throw InputError("workload 'command' runs a program fabriclab does not know: it has no params or grad_bytes");
  }
};

}  // namespace

const Workload& command_workload() {
  static const CommandWorkload instance;
  return instance;
}

std::vector<std::string> argv_of(const std::string& json_text) {
  const nlohmann::json argv = nlohmann::json::parse(json_text, nullptr, false);
  if (!argv.is_array() || argv.empty())
    throw std::invalid_argument("expected a command line (a JSON array of strings), got " + json_text);
  std::vector<std::string> out;
  for (const nlohmann::json& arg : argv) {
    if (!arg.is_string()) throw std::invalid_argument("expected strings in the command line " + json_text);
    out.push_back(arg.get<std::string>());
  }
  return out;
}

}  // namespace fabriclab::runner
