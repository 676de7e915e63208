// The table of per-link settings (link_setting.h). Add a setting here.
#include "runner/link/impair_setting.h"
#include "runner/link/link_setting.h"
#include "runner/link/queue_setting.h"
#include "runner/link/sysctl_setting.h"

namespace fabriclab::runner {

namespace {

const std::vector<const LinkSettingKind*>& entries() {
  static const std::vector<const LinkSettingKind*> table = {&impair_setting(), &sysctl_setting(),
                                                             &queue_setting()};
  return table;
}

}  // namespace

const LinkSettingKind* find_link_setting(const std::string& key) {
  for (const LinkSettingKind* kind : entries()) {
    if (key == kind->key()) return kind;
  }
  return nullptr;
}

std::vector<std::string> link_setting_keys() {
  std::vector<std::string> keys;
  for (const LinkSettingKind* kind : entries()) keys.push_back(kind->key());
  return keys;
}

}  // namespace fabriclab::runner
