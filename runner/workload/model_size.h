// Parameter counts of the trainer's models (trainer/models.cc), so "from the
// lab" exercises can state the gradient size without a run:
//   mlp: 785w + (w+1)w + (w+1)10   (784->w, w->w, w->10, with biases)
//   cnn: 13258 + 523w              (conv 1->16 5x5, conv 16->32 5x5, 512->w, w->10)
// The gradient is params x 4 bytes (fp32). Throws InputError for an unknown model.
#pragma once

#include <cstdint>
#include <string>

namespace fabriclab::runner {

int64_t model_params(const std::string& model, int64_t width);

}  // namespace fabriclab::runner
