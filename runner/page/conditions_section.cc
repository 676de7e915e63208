#include "runner/page/conditions_section.h"

#include <spdlog/fmt/fmt.h>

#include <ctime>

#include "runner/page/html_text.h"
#include "runner/page/json_text.h"
#include "runner/page/network_table.h"

namespace fabriclab::runner::page {
namespace {

using nlohmann::json;

// "2026-11-22 05:30:00 UTC" from unix seconds; "" when not a number.
std::string utc_time(const json& seconds) {
  if (!seconds.is_number()) return "";
  const std::time_t t = static_cast<std::time_t>(seconds.get<double>());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

std::string row(const std::string& name, const std::string& value) {
  if (value.empty()) return "";
  return fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td></tr>\n", html_escape(name),
                     html_escape(value));
}

std::string run_table(const json& m) {
  const json& lab = field(m, "lab");
  std::string duration;
  if (field(m, "started_unix_s").is_number() && field(m, "ended_unix_s").is_number()) {
    duration = fmt::format("{:.0f} s", field(m, "ended_unix_s").get<double>() -
                                           field(m, "started_unix_s").get<double>());
  }
  std::string backend = plain(field(m, "backend"));
  if (!plain(field(m, "backend_why")).empty()) backend += " -- " + plain(field(m, "backend_why"));
  std::string workload = plain(field(m, "workload"));
  if (workload.empty()) workload = "train";
  const std::string parameters = pairs(field(m, "trainer"));
  if (!parameters.empty()) workload += ": " + parameters;
  std::string html = "<table class=\"fl-facts\" id=\"fl-run\">\n";
  html += row("lab", plain(field(lab, "id")) + " " + plain(field(lab, "name")));
  html += row("run", plain(field(m, "run_id")));
  html += row("seed", plain(field(m, "seed")));
  html += row("started", utc_time(field(m, "started_unix_s")));
  html += row("took", duration);
  html += row("quick", plain(field(m, "quick")));
  html += row("mode", plain(field(m, "mode")));
  html += row("privileges", plain(field(m, "privileges")));
  html += row("impairment backend", backend);
  html += row("kernel", plain(field(m, "kernel")));
  html += row("host", plain(field(m, "host")));
  html += row("versions", pairs(field(m, "versions")));
  html += row("ranks", plain(field(m, "ranks")));
  html += row("fabric", plain(field(m, "fabric")));
  html += row("segmentation offload", plain(field(m, "segmentation_offload")));
  html += row("workload", workload);
  html += row("lab sysctl", plain(field(m, "lab_sysctl")));
  return html + "</table>\n";
}

// One row per (scenario, setting): which links, what, and where it went.
std::string impairments_table(const json& m) {
  const json& scenarios = field(m, "scenarios");
  if (!scenarios.is_array()) return "";
  std::string rows;
  for (const json& s : scenarios) {
    const json& settings = field(s, "impairments");
    const std::string name = plain(field(s, "name"));
    const std::string condition = plain(field(s, "condition"));
    if (!settings.is_array() || settings.empty()) {
      rows += fmt::format("<tr><td>{}</td><td>{}</td><td></td><td>none</td><td></td></tr>\n",
                          html_escape(name), html_escape(condition));
      continue;
    }
    for (const json& setting : settings) {
      std::string links;
      if (field(setting, "links").is_array()) {
        for (const json& link : field(setting, "links")) {
          links += (links.empty() ? "" : ", ") + plain(link);
        }
      }
      std::string what;
      if (!plain(field(setting, "key")).empty()) {
        what = plain(field(setting, "key")) + " = " + plain(field(setting, "value"));
      } else {
        what = plain(field(setting, "spec"));
        what = what.empty() ? "none" : "impair = " + what;
      }
      std::string applied;
      if (field(setting, "applied").is_array() && !field(setting, "applied").empty()) {
        applied = fmt::format("<details><summary>{} place(s)</summary><ul>",
                              field(setting, "applied").size());
        for (const json& line : field(setting, "applied")) {
          applied += "<li>" + html_escape(plain(line)) + "</li>";
        }
        applied += "</ul></details>";
      }
      rows += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
          html_escape(name), html_escape(condition), html_escape(links), html_escape(what),
          applied);
    }
  }
  return "<h3>Link settings per scenario</h3>\n<div class=\"fl-scroll\"><table "
         "id=\"fl-impairments\">\n"
         "<thead><tr><th>scenario</th><th>condition</th><th>links</th><th>setting</th>"
         "<th>applied</th></tr></thead>\n<tbody>\n" +
         rows + "</tbody>\n</table></div>\n";
}

}  // namespace

std::string conditions_section(const json& manifest) {
  return "<section id=\"conditions\">\n<h2>Conditions</h2>\n" + run_table(manifest) +
         impairments_table(manifest) + network_table(manifest) + "</section>\n";
}

}  // namespace fabriclab::runner::page
