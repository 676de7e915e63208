// run.json's values as text for the page, read leniently: the run reader
// (runner/rundir/run_reader.h) has checked what the page depends on, and
// anything else that is absent or of another type is shown as it is (JSON
// text) or left out, never an error. The results are plain text, escaped by
// the caller (html_text.h). Pure functions, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner::page {

// object[key], or null when `object` is no object or has no such key.
const nlohmann::json& field(const nlohmann::json& object, const char* key);

// A value as one line: a string as it is, "" for null, else compact JSON.
std::string plain(const nlohmann::json& value);

// "k=v k=v" of an object's members, in its order (plain() otherwise).
std::string pairs(const nlohmann::json& object);

}  // namespace fabriclab::runner::page
