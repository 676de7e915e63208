// The scripts and styles a page inlines, compiled into fabriclab so a page is
// one file that needs nothing at view time and `fabriclab page` needs nothing
// at write time: runner/page/CMakeLists.txt embeds them (embed_file.cmake).
//
//  - asciinema-player's bundle (JS and CSS), the npm package pinned in the
//    repository's package.json / package-lock.json and installed into
//    node_modules/ by scripts/setup.sh (`npm ci`). Apache-2.0; its licence
//    comment stays at the top of the script.
//  - the page's own page.js (mounts the player on the embedded cast, wires
//    the scenario buttons) and page.css, beside this file.
//
// A build made before node_modules/ existed has empty player assets:
// player_assets_present() is false and `fabriclab page` says to run
// scripts/setup.sh and rebuild. Thread-safe (constant data).
#pragma once

#include <string_view>

namespace fabriclab::runner::page {

std::string_view player_js();
std::string_view player_css();
std::string_view player_version();  // "3.18.0"; "" when not installed at build time
std::string_view page_js();
std::string_view page_css();

inline bool player_assets_present() { return !player_js().empty() && !player_css().empty(); }

}  // namespace fabriclab::runner::page
