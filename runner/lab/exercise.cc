#include "runner/lab/exercise.h"

#include <sstream>

namespace fabriclab::runner {

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kNumber:
      return "number";
    case Kind::kChoice:
      return "choice";
    case Kind::kRank:
      return "rank";
    case Kind::kOrdering:
      return "ordering";
    case Kind::kProperty:
      return "property";
    case Kind::kPrediction:
      return "prediction";
  }
  return "?";
}

const char* source_name(Source source) {
  switch (source) {
    case Source::kRecording:
      return "recording";
    case Source::kLab:
      return "lab";
    case Source::kSeed:
      return "seed";
  }
  return "?";
}

std::string Tolerance::text() const {
  std::ostringstream out;
  if (relative_percent > 0)
    out << relative_percent << "%";
  else if (absolute > 0)
    out << absolute;
  else
    out << "exact";
  return out.str();
}

}  // namespace fabriclab::runner
