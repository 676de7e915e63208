#include "trainer/model_kind.h"

#include "common/input_error.h"

namespace fabriclab::trainer {

ModelKind parse_model_kind(const std::string& word) {
  if (word == "mlp") return ModelKind::kMlp;
  if (word == "cnn") return ModelKind::kCnn;
  throw InputError("unknown model '" + word + "': expected mlp or cnn");
}

std::string model_kind_name(ModelKind kind) { return kind == ModelKind::kMlp ? "mlp" : "cnn"; }

}  // namespace fabriclab::trainer
