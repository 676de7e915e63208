// The table of tables (table_kind.h). Add a table here.
#include "runner/report/table_kind.h"

#include "runner/report/alpha_beta_table.h"
#include "runner/report/cost_table.h"
#include "runner/report/per_rank_table.h"
#include "runner/report/queue_table.h"
#include "runner/report/scale_up_table.h"
#include "runner/report/sweep_table.h"
#include "runner/report/uplink_table.h"
#include "runner/report/wire_bytes_table.h"

namespace fabriclab::runner::report {

namespace {

const TableKind kTables[] = {
    {"wire_bytes", format_wire_bytes_table},
    {"scale_up", format_scale_up_table},
    {"per_rank", format_per_rank_table},
    {"cost", format_cost_table},
    {"sweep", format_sweep_table},
    {"queue", format_queue_table},
    {"uplinks", format_uplink_table},
    {"alpha_beta", format_alpha_beta_table},
};

}  // namespace

const TableKind* find_table(const std::string& name) {
  for (const TableKind& table : kTables) {
    if (name == table.name) return &table;
  }
  return nullptr;
}

std::vector<std::string> table_names() {
  std::vector<std::string> names;
  for (const TableKind& table : kTables) names.push_back(table.name);
  return names;
}

}  // namespace fabriclab::runner::report
