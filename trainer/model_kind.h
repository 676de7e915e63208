// Which model a lab trains (models.h builds it). Free of libtorch, so the
// CLI can parse the word without compiling libtorch's headers (doc/build.md).
#pragma once

#include <string>

namespace fabriclab::trainer {

enum class ModelKind { kMlp, kCnn };

// "mlp" | "cnn"; throws InputError otherwise.
ModelKind parse_model_kind(const std::string& word);
std::string model_kind_name(ModelKind kind);

}  // namespace fabriclab::trainer
