#include "runner/page/page_assets.h"

namespace fabriclab::runner::page {

// The version CMake read from node_modules/asciinema-player/package.json
// when it configured the build (runner/page/CMakeLists.txt).
std::string_view player_version() { return FABRICLAB_PLAYER_VERSION; }

}  // namespace fabriclab::runner::page
