// fabriclab: hands-on labs that show what AI training does to a network.
// main() only wires the subcommands (runner/cli/*_command.cc) and maps
// outcomes to exit codes: 0 ok, 1 failure, 2 bad input.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>
#include <utility>
#include <exception>

#include "common/input_error.h"
#include "common/logging.h"
#include "runner/cli/commands.h"
#include "runner/cli/parse_error_words.h"

int main(int argc, char** argv) {
  CLI::App app{"fabriclab: hands-on labs that show what AI training does to a network"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("fabriclab ") + FABRICLAB_VERSION);
  int verbosity = 0;
  app.add_flag("-v,--verbose", verbosity, "More log output (repeat for trace)");
  app.add_flag_callback("-q,--quiet", [&] { verbosity = -1; }, "Warnings and errors only");
  app.parse_complete_callback([&] { fabriclab::init_logging("fabriclab", verbosity); });

  fabriclab::cli::add_list_command(app);
  fabriclab::cli::add_run_command(app);
  fabriclab::cli::add_check_command(app);
  fabriclab::cli::add_train_command(app);
  fabriclab::cli::add_job_command(app);
  fabriclab::cli::add_netem_command(app);
  fabriclab::cli::add_doctor_command(app);
  fabriclab::cli::add_cleanup_command(app);
  fabriclab::cli::add_rxe_command(app);
  fabriclab::cli::add_grade_command(app);
  fabriclab::cli::add_progress_command(app);
  fabriclab::cli::add_replay_command(app);
  fabriclab::cli::add_page_command(app);
  fabriclab::cli::add_cost_command(app);
  fabriclab::cli::add_topo_command(app);
  fabriclab::cli::add_bench_gemm_command(app);
  fabriclab::cli::add_bench_impair_command(app);
  fabriclab::cli::add_bench_queue_command(app);
  fabriclab::cli::add_bench_train_command(app);
  fabriclab::cli::add_bench_allreduce_command(app);
  fabriclab::cli::add_bench_accounting_command(app);

  // CLI11 would only say "A subcommand is required" for a misspelt one.
  const std::function<bool(const CLI::App*)> every = [](const CLI::App*) { return true; };
  const std::vector<const CLI::App*> subcommands = std::as_const(app).get_subcommands(every);
  for (int i = 1; i < argc && argv[i][0] != '\0'; ++i) {
    if (argv[i][0] == '-') continue;  // the global flags take no value
    std::string known;
    bool found = false;
    for (const CLI::App* sub : subcommands) {
      found = found || sub->check_name(argv[i]);
      if (sub->get_group().empty()) continue;  // hidden: what the runner runs in a rank
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (found) break;
    std::fprintf(stderr, "unknown subcommand '%s' (expected one of: %s; see --help)\n", argv[i],
                 known.c_str());
    return fabriclab::kExitInputError;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    // What app.exit(e) prints, with what was expected where CLI11 leaves it out.
    std::fprintf(stderr, "%s\nRun with --help for more information.\n",
                 fabriclab::cli::parse_error_message(app, e).c_str());
    return fabriclab::kExitInputError;
  } catch (const fabriclab::cli::CommandExit& e) {
    return e.code;
  } catch (const fabriclab::InputError& e) {
    spdlog::error("{}", e.what());
    return fabriclab::kExitInputError;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return fabriclab::kExitFailure;
  }
  return fabriclab::kExitOk;
}
