#include "runner/cast/cast_reader.h"

#include <sys/stat.h>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/input_error.h"
#include "common/json_error.h"

namespace fabriclab::runner {
namespace {

using nlohmann::json;

// Casts are a few MB at most; a bigger file is not ours (and would not fit a
// player's memory budget anyway).
constexpr std::size_t kMaxCastBytes = 512u << 20;

std::string printable(const std::string& text) { return printable_text(text); }

std::optional<json> try_parse(const std::string& text, std::string* error) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or a number too large ("1e400")
    if (error != nullptr) *error = json_error_text(e);
    return std::nullopt;
  }
}

std::string version_message(const json& version) {
  return "asciicast version " + printable(version.dump()) +
         " is not supported: this player reads version 2 (asciinema 2.x records it; "
         "re-record, or convert the file to asciicast v2)";
}

CastHeader parse_header(const json& header, const std::string& path) {
  auto fail = [&](const std::string& message) { return input_error_at(path, 1, message); };
  if (!header.is_object()) {
    throw fail("header: expected a JSON object {\"version\": 2, \"width\": ..., \"height\": ...}");
  }
  if (!header.contains("version")) throw fail("header: no \"version\" (expected 2)");
  const json& version = header["version"];
  if (!version.is_number_integer()) {
    throw fail("header: \"version\" must be the integer 2, not " + printable(version.dump()));
  }
  if (version.get<long long>() != kCastVersion) throw fail(version_message(version));

  CastHeader out;
  for (const char* key : {"width", "height"}) {
    const auto it = header.find(key);
    if (it == header.end() || !it->is_number_integer() || it->get<long long>() <= 0 ||
        it->get<long long>() > 100000) {
      throw fail(std::string("header: \"") + key + "\" must be a positive integer (columns/rows)" +
                 (it == header.end() ? ", and is missing" : ", not " + printable(it->dump())));
    }
    (std::string(key) == "width" ? out.width : out.height) = it->get<int>();
  }
  auto optional_number = [&](const char* key) -> std::optional<double> {
    const auto it = header.find(key);
    if (it == header.end() || it->is_null()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      throw fail(std::string("header: \"") + key + "\" must be a non-negative number, not " +
                 printable(it->dump()));
    }
    return it->get<double>();
  };
  out.timestamp_unix_s = optional_number("timestamp");
  out.idle_time_limit_s = optional_number("idle_time_limit");
  if (const auto it = header.find("title"); it != header.end() && !it->is_null()) {
    if (!it->is_string())
      throw fail("header: \"title\" must be a string, not " + printable(it->dump()));
    out.title = it->get<std::string>();
  }
  if (const auto it = header.find("env");
      it != header.end() && !it->is_null() && !it->is_object()) {
    throw fail("header: \"env\" must be an object, not " + printable(it->dump()));
  }
  return out;
}

CastEvent parse_event(const json& event, const std::string& path, long line) {
  if (!event.is_array() || event.size() != 3 || !event[0].is_number() || !event[1].is_string() ||
      !event[2].is_string()) {
    std::string shown = event.dump(-1, ' ', false, json::error_handler_t::replace);
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    shown = printable(shown);
    throw input_error_at(
        path, line, "event: expected [time, code, data] (a number and two strings), got " + shown);
  }
  CastEvent out;
  out.time_s = event[0].get<double>();
  out.code = event[1].get<std::string>();
  out.data = event[2].get<std::string>();
  out.line = line;
  if (!std::isfinite(out.time_s) || out.time_s < 0) {
    throw input_error_at(
        path, line,
        "event: time must be a non-negative number of seconds, not " + printable(event[0].dump()));
  }
  if (out.code.empty()) throw input_error_at(path, line, "event: empty event code; expected one such as \"o\" (output) or \"i\" (input)");
  return out;
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

}  // namespace

Cast parse_cast(std::istream& in, const std::string& path) {
  std::string text;
  text.reserve(1 << 16);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxCastBytes) {
      throw InputError(path + ": larger than " + std::to_string(kMaxCastBytes >> 20) +
                       " MiB; not a fabriclab recording");
    }
  }
  if (in.bad()) throw InputError(path + ": read error");

  Cast cast;
  cast.path = path;
  std::size_t pos = 0;
  long line_number = 0;
  bool have_header = false;
  double previous_time_s = 0;
  while (pos < text.size()) {
    const std::size_t newline = text.find('\n', pos);
    const bool terminated = newline != std::string::npos;
    std::string line = text.substr(pos, terminated ? newline - pos : std::string::npos);
    pos = terminated ? newline + 1 : text.size();
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    if (line.find_first_not_of(" \t") == std::string::npos) continue;

    std::string error;
    const std::optional<json> value = try_parse(line, &error);
    if (!value) {
      if (!have_header) {
        // asciicast v1 is one (usually pretty-printed) JSON document.
        if (const std::optional<json> whole = try_parse(text, nullptr);
            whole && whole->is_object() && whole->contains("version")) {
          throw InputError(path + ": " + version_message((*whole)["version"]));
        }
        throw input_error_at(path, line_number,
                             "header: not JSON (" + error + "); expected an asciicast v2 header");
      }
      if (!terminated) {
        throw input_error_at(path, line_number,
                             "truncated: the file ends inside this event, expected a whole "
                             "[time, code, data] line (was the recording interrupted?)");
      }
      throw input_error_at(path, line_number, "not JSON: " + error);
    }
    if (!have_header) {
      cast.header = parse_header(*value, path);
      have_header = true;
      continue;
    }
    CastEvent event = parse_event(*value, path, line_number);
    if (event.time_s < previous_time_s) {
      throw input_error_at(path, line_number,
                           "time " + seconds_text(event.time_s) +
                               " s is before the previous event's " +
                               seconds_text(previous_time_s) + " s (times must not go backwards)");
    }
    previous_time_s = event.time_s;
    cast.events.push_back(std::move(event));
  }
  if (!have_header) {
    throw input_error_at(path, 1, "empty; expected an asciicast v2 header line and events");
  }
  return cast;
}

Cast read_cast(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    throw InputError(path +
                     ": not found (expected an asciicast v2 file, e.g. a run's "
                     "session.cast)");
  }
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot be read");
  return parse_cast(in, path);
}

}  // namespace fabriclab::runner
