#include "runner/bench/pytorch_baseline.h"

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "common/build_paths.h"
#include "common/file_text.h"
#include "common/input_error.h"
#include "runner/process/process.h"

namespace fabriclab::runner::bench {
namespace {

// Importing torch takes a second or two; on a loaded machine much longer.
constexpr std::chrono::seconds kImportTimeout{120};

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

std::string default_gloo_baseline_script() {
  return std::string(fabriclab::build_paths::source_dir()) +
         "/trainer/bench/gloo_allreduce_baseline.py";
}

std::string check_pytorch_baseline(const std::string& python, const std::string& script,
                                   const TempDir& tmp) {
  const std::string remedy =
      "--baseline pytorch runs torch.distributed's Gloo allreduce: expected a python with "
      "python3-torch (scripts/setup.sh installs it; or give --python)";
  if (!std::filesystem::exists(script))
    throw InputError("--baseline-script " + script +
                     ": no such file (expected trainer/bench/gloo_allreduce_baseline.py)");
  const std::string out = tmp.file("python-check.log");
  LaunchSpec spec;
  spec.argv = {python, "-c",
               "import torch, torch.distributed as d\n"
               "assert d.is_available() and d.is_gloo_available(), 'torch.distributed without "
               "Gloo'\n"
               "print(torch.__version__)"};
  spec.label = "python3-torch check";
  spec.stdout_stream = Redirect::file(out);
  spec.stderr_stream = Redirect::append(out);
  Process p;
  try {
    p = Process::launch(spec);
  } catch (const std::runtime_error& e) {
    throw InputError("--python " + python + ": " + e.what() + ". " + remedy);
  }
  const std::optional<ExitStatus> status = p.wait_for(kImportTimeout);
  if (!status) {
    p.terminate();
    throw std::runtime_error("--python " + python + ": importing torch took over " +
                             std::to_string(kImportTimeout.count()) + " s");
  }
  const std::string text = try_read_file_text(out).value_or("");
  if (!status->success())
    throw InputError("--python " + python + ": cannot import torch.distributed with Gloo (" +
                     status->describe() + ": " + last_line(text) + "). " + remedy);
  return last_line(text);
}

}  // namespace fabriclab::runner::bench
