// Text from a recording into an HTML page, inert whatever it holds. Everything
// a page shows comes from files someone else may have written (run.json,
// session.cast, lab.toml), so every piece of text passes through one of these
// two on its way into the page; nothing is pasted in raw.
//
//   out << "<td>" << html_escape(scenario.condition) << "</td>";
//   out << "<script type=\"application/json\" id=\"fl-data\">" << script_json(data) << "</script>";
//
// html_escape: for element content and for attribute values in double or
// single quotes: & < > " ' become character references, so no text can open
// a tag, end an attribute or start an entity of its own.
// script_json: JSON for a <script type="application/json"> element, whose
// content the HTML parser does not decode: the only way out of it is the
// text "</script", so < > & are written as \u003c \u003e \u0026 (JSON escapes
// that JSON.parse reads back as the same characters), and so are U+2028 and
// U+2029 (line ends to old JavaScript parsers). Non-ASCII is \u-escaped too;
// bytes that are not valid UTF-8 become U+FFFD instead of throwing.
// Pure functions, thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fabriclab::runner::page {

std::string html_escape(std::string_view text);

std::string script_json(const nlohmann::json& value);

}  // namespace fabriclab::runner::page
