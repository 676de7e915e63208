// Moved to runner/cast/console.h (issue 31: "recording" named three things).
// This forwarding header keeps runner/scenario/scenario_runner.cc
// building while other branches rework those files; once they have landed,
// point their include at runner/cast/ and delete runner/recording/.
#pragma once

#include "runner/cast/console.h"
