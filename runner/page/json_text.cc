#include "runner/page/json_text.h"

namespace fabriclab::runner::page {

using nlohmann::json;

const json& field(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string plain(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string pairs(const json& object) {
  if (!object.is_object()) return plain(object);
  std::string out;
  for (const auto& [key, value] : object.items()) {
    out += (out.empty() ? "" : " ") + key + "=" + plain(value);
  }
  return out;
}

}  // namespace fabriclab::runner::page
