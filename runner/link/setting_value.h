// One setting's value: the words lab.toml wrote, and what its kind parsed
// them into, once, when the lab was loaded (LinkSettingKind::parse). Every
// later reader -- the backend choice, the scenario runner, host mode -- gets
// the parsed value, not the words again.
//
// Ownership: the parsed value is shared and immutable, so copies are cheap
// and thread-safe to read. Only the kind that parsed a value reads its
// parsed form (parsed<T>() with the T that kind stores; link_setting.h).
#pragma once

#include <memory>
#include <string>

namespace fabriclab::runner {

class SettingValue {
 public:
  SettingValue() = default;
  SettingValue(std::string text, std::shared_ptr<const void> parsed)
      : text_(std::move(text)), parsed_(std::move(parsed)) {}

  // As lab.toml wrote it: for run.json, the log and messages.
  const std::string& text() const { return text_; }
  // What the kind parsed it into; T is the kind's own type.
  template <typename T>
  const T& parsed() const {
    return *static_cast<const T*>(parsed_.get());
  }

  // Two values are the same setting when they are the same words.
  bool operator==(const SettingValue& other) const { return text_ == other.text_; }
  bool operator!=(const SettingValue& other) const { return !(*this == other); }

 private:
  std::string text_;
  std::shared_ptr<const void> parsed_;
};

}  // namespace fabriclab::runner
