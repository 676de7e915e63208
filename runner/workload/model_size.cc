#include "runner/workload/model_size.h"

#include "common/input_error.h"

namespace fabriclab::runner {

int64_t model_params(const std::string& model, int64_t w) {
  if (model == "mlp") return 785 * w + (w + 1) * w + (w + 1) * 10;
  if (model == "cnn")
    return (1 * 16 * 25 + 16) + (16 * 32 * 25 + 32) + (512 * w + w) + (w * 10 + 10);
  throw InputError("model '" + model + "': expected mlp or cnn");
}

}  // namespace fabriclab::runner
