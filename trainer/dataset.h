// Image classification data held in memory as tensors.
//
// Sources: an MNIST-format IDX folder (Fashion-MNIST from Debian's
// dataset-fashion-mnist by default; files may be gzip'd or plain), or a
// synthetic, learnable dataset made from a seed (for tests that must not
// depend on files).
#pragma once

#include <torch/types.h>

#include <cstdint>
#include <string>

namespace fabriclab::trainer {

constexpr const char* kDefaultDataDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kDatasetPackage = "dataset-fashion-mnist";

// images: float32 [N, 1, H, W], normalized to mean 0 / std 1 (Fashion-MNIST's
// statistics); labels: int64 [N] in [0, classes).
struct Split {
  torch::Tensor images;
  torch::Tensor labels;
  int64_t size() const { return labels.size(0); }
};

struct Dataset {
  Split train;
  Split test;
  int64_t classes = 10;
  std::string description;  // "fashion-mnist (/usr/share/...)" or "synthetic(seed=1)"
};

// Reads train-{images-idx3,labels-idx1}-ubyte[.gz] and t10k-... from `dir`.
// Throws InputError naming the file, what was wrong (missing, wrong magic,
// truncated, count mismatch) and, for the default folder, the package to install.
Dataset load_idx_dataset(const std::string& dir);

// A deterministic dataset of `train_size` + `test_size` 28x28 images: one
// random prototype per class plus noise, so a model can learn it.
Dataset make_synthetic_dataset(uint64_t seed, int64_t train_size = 8192, int64_t test_size = 1024);

}  // namespace fabriclab::trainer
