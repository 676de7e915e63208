#include "runner/page/network_table.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>
#include <vector>

#include "runner/page/html_text.h"
#include "runner/page/json_text.h"

namespace fabriclab::runner::page {

using nlohmann::json;

std::string network_table(const json& m) {
  const json& network = field(m, "network");
  const json& places = field(network, "namespaces");
  if (!places.is_array() || places.empty()) return "";
  struct Row {
    std::string ranks, where, settings;  // settings: the cells after them, HTML
  };
  std::vector<Row> rows;
  for (const json& place : places) {
    std::string ranks;
    if (field(place, "ranks").is_array()) {
      for (const json& r : field(place, "ranks")) ranks += (ranks.empty() ? "" : ", ") + plain(r);
    }
    std::string where = plain(field(place, "netns"));
    if (where.empty()) where = plain(field(place, "host"));
    std::string routes;
    if (field(place, "routes").is_array()) {
      for (const json& route : field(place, "routes")) {
        const std::string metrics = pairs(field(route, "metrics"));
        routes += (routes.empty() ? "" : "; ") + plain(field(route, "to")) +
                  (metrics.empty() ? "" : " " + metrics);
      }
    }
    std::string sysctls;
    if (field(place, "sysctls").is_object()) {
      for (const auto& [key, value] : field(place, "sysctls").items()) {
        sysctls += "<li><code>" + html_escape(key) + " = " +
                   html_escape(value.is_null() ? "(none)" : plain(value)) + "</code></li>";
      }
    }
    const std::string settings = fmt::format(
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><ul>{}</ul></td>",
        html_escape(plain(field(place, "device"))), html_escape(plain(field(place, "mtu"))),
        html_escape(plain(field(place, "qdisc"))), html_escape(routes), sysctls);
    auto same = std::find_if(rows.begin(), rows.end(),
                             [&](const Row& row) { return row.settings == settings; });
    if (same == rows.end()) {
      rows.push_back({ranks, where, settings});
    } else {
      same->ranks += ", " + ranks;
      same->where += ", " + where;
    }
  }
  std::string body;
  for (const Row& row : rows) {
    body += fmt::format("<tr><td>{}</td><td>{}</td>{}</tr>\n", html_escape(row.ranks),
                        html_escape(row.where), row.settings);
  }
  return "<h3>Network and TCP settings (read back from the rank namespaces)</h3>\n"
         "<div class=\"fl-scroll\"><table id=\"fl-network\">\n<thead><tr><th>ranks</th>"
         "<th>namespaces / host</th><th>device</th><th>MTU</th><th>qdisc</th><th>routes</th>"
         "<th>sysctls</th></tr></thead>\n<tbody>\n" +
         body + "</tbody>\n</table></div>\n";
}

}  // namespace fabriclab::runner::page
