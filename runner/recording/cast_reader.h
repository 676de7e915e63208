// Moved to runner/cast/cast_reader.h (issue 31: "recording" named three things).
// This forwarding header keeps runner/page/page_writer.cc, runner/page/player_cast.h
// building while other branches rework those files; once they have landed,
// point their include at runner/cast/ and delete runner/recording/.
#pragma once

#include "runner/cast/cast_reader.h"
