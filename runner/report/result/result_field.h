// One measured field of a scenario's result row, declared once by the part
// that computes it (result_part.h): its name in run.json's `result`, its
// unit, its kind and a one-line meaning. recordings/FORMAT.md defines each
// in full; result_parts_format_test.cc holds the two to each other.
//
// The kinds say what a value in JSON may be, so readers need no list of
// their own: kNumber, kCount and kRank are JSON numbers (kCount and kRank
// integers) or null, kWord a name (an uplink's, a router's) or null,
// kBytesByName an object {"NAME": bytes}. A `per_flow` field is a family
// spelled NAME_suffix, one per neighbour flow the lab names ("victim_mbps").
#pragma once

#include <string>

namespace fabriclab::runner::report {

enum class FieldKind { kNumber, kCount, kRank, kWord, kBytesByName };

struct ResultField {
  std::string name;  // as in run.json; for a per_flow family "NAME_" + suffix
  std::string unit;  // "s", "ms", "bytes", "GB/s", "share" (0..1), "ratio", "" for a name
  FieldKind kind = FieldKind::kNumber;
  std::string meaning;  // one line; recordings/FORMAT.md has the definition
  bool per_flow = false;

  // The suffix a per_flow field's instances end with ("_mbps").
  std::string suffix() const { return per_flow ? name.substr(name.find('_')) : name; }
  // Whether `key` (a run.json result key) is this field or one of its family.
  bool names(const std::string& key) const;
};

// Whether a field of this kind holds a figure (a grader may compare it with
// a number); a word is compared with `is`; bytes by name are for tables.
bool is_figure(FieldKind kind);

}  // namespace fabriclab::runner::report
