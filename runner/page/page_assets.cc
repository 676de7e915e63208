#include "runner/page/page_assets.h"

#include <nlohmann/json.hpp>
#include <string>

namespace fabriclab::runner::page {

std::string_view player_package();  // node_modules/asciinema-player/package.json, embedded

// The version of the player that was embedded, read from its own
// package.json (so it cannot disagree with the bundle); "" without one.
std::string_view player_version() {
  static const std::string version = [] {
    const nlohmann::json package = nlohmann::json::parse(player_package(), nullptr, false);
    if (!package.is_object() || !package.contains("version") || !package["version"].is_string()) {
      return std::string();
    }
    return package["version"].get<std::string>();
  }();
  return version;
}

}  // namespace fabriclab::runner::page
