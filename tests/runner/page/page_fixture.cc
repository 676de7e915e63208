#include "tests/runner/page/page_fixture.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/build_paths.h"

namespace fabriclab::testing {

namespace fs = std::filesystem;

std::string copy_recording(const std::string& name, const std::string& parent) {
  const fs::path from = fs::path(fabriclab::build_paths::source_dir()) / "recordings" / name;
  const fs::path to = fs::path(parent) / name;
  fs::create_directories(to);
  for (const char* file : {"run.json", "metrics.jsonl", "session.cast"}) {
    fs::copy_file(from / file, to / file, fs::copy_options::overwrite_existing);
  }
  return to.string();
}

double make_hostile(const std::string& dir) {
  const fs::path run_json = fs::path(dir) / "run.json";
  nlohmann::json run = nlohmann::json::parse(read_file(run_json.string()));
  run["lab"]["title"] = std::string("lab ") + kScriptPayload;
  run["backend_why"] = kMarkupPayload;
  run["scenarios"][0]["condition"] = std::string("clean ") + kScriptPayload + kMarkupPayload;
  std::ofstream(run_json) << run.dump(2);

  // The cast: a hostile title in the header, and after the last event,
  // output with the payloads, terminal attacks (clipboard, a query that
  // makes a terminal answer, a title change) and a 1 MiB line, and a marker
  // whose label is markup.
  const fs::path cast_path = fs::path(dir) / "session.cast";
  std::ifstream in(cast_path);
  std::string header, line, body;
  std::getline(in, header);
  double last = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = nlohmann::json::parse(line)[0].get<double>();
    body += line + "\n";
  }
  nlohmann::json head = nlohmann::json::parse(header);
  head["title"] = kScriptPayload;
  auto event = [&](double dt, const char* code, const std::string& data) {
    return nlohmann::json::array({last + dt, code, data}).dump() + "\n";
  };
  body += event(0.1, "o", std::string(1024 * 1024, 'Z') + "\r\n");
  body += event(0.2, "o", std::string("\r\nhostile: ") + kScriptPayload + "\r\n");
  body += event(0.3, "o", std::string(kMarkupPayload) + "\r\n");
  body += event(0.4, "o",
                "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[6n\x1b]2;0wn3d-title\x07"
                "after the attacks\r\n");
  body += event(0.5, "m", kScriptPayload);
  std::ofstream(cast_path) << head.dump() << "\n" << body;
  return last;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string results_body(const std::string& html) {
  const std::size_t table = html.find("<table id=\"fl-results\">");
  if (table == std::string::npos) return "";
  const std::size_t body = html.find("<tbody>", table);
  return html.substr(body, html.find("</tbody>", body) - body);
}

RunResult run_page(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {fabriclab::build_paths::fabriclab_binary(), "page"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, {}, std::chrono::seconds(120));
}

}  // namespace fabriclab::testing
