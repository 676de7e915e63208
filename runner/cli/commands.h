// Every subcommand of `fabriclab` is one add_*_command() that registers its
// options on the app and sets its callback. main.cc calls them in order.
//
// Contract for callbacks: throw fabriclab::InputError for bad input (exit 2),
// any other exception for failures (exit 1); to exit with another code, throw
// CommandExit.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace fabriclab::cli {

// Thrown by a command that has already reported its outcome and wants the
// process to exit with `code` (e.g. a grade that did not pass).
struct CommandExit {
  int code;
};

// A flag's number above 0 (or, with `zero_ok`, at least 0) and finite:
// "--speed: expected a number above 0, got inf" (CLI11's own PositiveNumber
// prints its range down to the last digit of DBL_MAX).
inline CLI::Validator positive_number(bool zero_ok = false) {
  return CLI::Validator(
      [zero_ok](std::string& text) -> std::string {
        double value = 0;
        const bool number = CLI::detail::lexical_cast(text, value);
        if (number && std::isfinite(value) && (value > 0 || (zero_ok && value == 0))) return "";
        return std::string("expected a number ") + (zero_ok ? "of 0 or more" : "above 0") +
               ", got " + text;
      },
      zero_ok ? "NUMBER >= 0" : "NUMBER > 0");
}

void add_train_command(CLI::App& app);
void add_job_command(CLI::App& app);  // hidden: one rank of a `command` workload
void add_run_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_netem_command(CLI::App& app);
void add_doctor_command(CLI::App& app);
void add_cleanup_command(CLI::App& app);
void add_rxe_command(CLI::App& app);  // `rxe --iface IF -- COMMAND`: a SoftRoCE device for COMMAND
void add_grade_command(CLI::App& app);
void add_progress_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_page_command(CLI::App& app);
void add_cost_command(CLI::App& app);
void add_topo_command(CLI::App& app);
void add_bench_gemm_command(CLI::App& app);       // `bench gemm`; creates `bench` if absent
void add_bench_impair_command(CLI::App& app);     // `bench impair`; creates `bench` if absent
void add_bench_queue_command(CLI::App& app);      // `bench queue`
void add_bench_train_command(CLI::App& app);      // `bench train`; creates `bench` if absent
void add_bench_allreduce_command(CLI::App& app);  // `bench allreduce` (+ hidden allreduce-rank)
void add_bench_accounting_command(CLI::App& app);  // `bench accounting`

}  // namespace fabriclab::cli
