#include "runner/cli/run_preparation.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "common/input_error.h"
#include "runner/grading/answers.h"
#include "runner/grading/prediction_record.h"

namespace fabriclab::cli {

void require_writable_folder(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::path existing = fs::absolute(path, error);
  while (!existing.empty() && !fs::exists(existing, error) && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::is_directory(existing, error))
    throw InputError(flag + " " + path + ": " + existing.string() +
                     " is not a directory (expected a folder for the run directories)");
  if (::access(existing.c_str(), W_OK) != 0)
    throw InputError(flag + " " + path + ": cannot write in " + existing.string() + " (" +
                     std::strerror(errno) + ")");
}

void take_predictions(const runner::LabDefinition& lab, const std::string& answers_flag,
                      const std::string& output, runner::LabRunOptions& options) {
  const bool asks = std::any_of(lab.exercises.begin(), lab.exercises.end(), [](const auto& e) {
    return e.kind == runner::Kind::kPrediction;
  });
  options.answers_path =
      answers_flag.empty() ? runner::grading::lab_answers_path(output, lab.id) : answers_flag;
  if (answers_flag.empty() && (!asks || !std::filesystem::exists(options.answers_path))) return;
  const runner::grading::Answers answers = runner::grading::load_answers(options.answers_path, lab);
  const double now = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  options.predictions = runner::grading::take_predictions(lab, answers, now);
}

}  // namespace fabriclab::cli
