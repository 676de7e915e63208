// Which labs a command line names: one lab ("02", "2", "02-dropped-packet"),
// every lab ("all"), or a range of numbers ("02-05", both ends included).
// `fabriclab run` and `fabriclab check` take these words.
//
// Contract: select_lab_files() returns lab.toml paths by number, never
// empty; it throws InputError naming the word, what was expected and the
// labs that exist when the word selects nothing (or a range runs backwards).
#pragma once

#include <string>
#include <vector>

namespace fabriclab::runner {

std::vector<std::string> select_lab_files(const std::string& labs_dir, const std::string& which);

// True when `which` names more than one lab's worth of words ("all", a
// range): the caller may refuse options that belong to one lab.
bool selects_many_labs(const std::string& which);

}  // namespace fabriclab::runner
