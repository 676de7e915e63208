// Moved to runner/cast/terminal_sanitizer.h (issue 31: "recording" named three things).
// This forwarding header keeps runner/page/player_cast.cc
// building while other branches rework those files; once they have landed,
// point their include at runner/cast/ and delete runner/recording/.
#pragma once

#include "runner/cast/terminal_sanitizer.h"
