#include "trainer/dataset.h"

#include <sys/stat.h>
#include <torch/torch.h>

#include "common/input_error.h"
#include "trainer/idx_file.h"

namespace fabriclab::trainer {
namespace {

// Fashion-MNIST's pixel statistics (over the training set, pixels in [0, 1]).
constexpr double kPixelMean = 0.2860;
constexpr double kPixelStd = 0.3530;

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The Debian package ships gzip'd files; other folders may hold plain ones.
std::string find_idx(const std::string& dir, const std::string& stem) {
  for (const std::string& candidate : {dir + "/" + stem + ".gz", dir + "/" + stem}) {
    if (file_exists(candidate)) return candidate;
  }
  std::string message = dir + "/" + stem + "[.gz]: not found";
  if (dir == kDefaultDataDir) {
    message += std::string("; install the dataset with: apt-get install ") + kDatasetPackage;
  } else {
    message += "; --data expects a folder of MNIST-format IDX files";
  }
  throw InputError(message);
}

Split load_split(const std::string& dir, const std::string& prefix) {
  const std::string images_path = find_idx(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx(dir, prefix + "-labels-idx1-ubyte");
  IdxFile images = read_idx_file(images_path, 3);
  IdxFile labels = read_idx_file(labels_path, 1);
  if (images.dims[0] != labels.dims[0]) {
    throw InputError(images_path + ": " + std::to_string(images.dims[0]) + " images but " +
                     labels_path + " has " + std::to_string(labels.dims[0]) + " labels");
  }
  Split split;
  split.images = torch::from_blob(images.data.data(), {images.dims[0], 1, images.dims[1], images.dims[2]},
                                  torch::kUInt8)
                     .to(torch::kFloat32)
                     .div_(255.0)
                     .sub_(kPixelMean)
                     .div_(kPixelStd);
  split.labels = torch::from_blob(labels.data.data(), {labels.dims[0]}, torch::kUInt8).to(torch::kInt64);
  if (split.labels.max().item<int64_t>() >= 10) {
    throw InputError(labels_path + ": labels must be class numbers 0..9");
  }
  return split;
}

}  // namespace

Dataset load_idx_dataset(const std::string& dir) {
  Dataset data;
  data.train = load_split(dir, "train");
  data.test = load_split(dir, "t10k");
  data.description = "idx(" + dir + ")";
  return data;
}

Dataset make_synthetic_dataset(uint64_t seed, int64_t train_size, int64_t test_size) {
  torch::NoGradGuard no_grad;
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  constexpr int64_t kClasses = 10;
  const torch::Tensor prototypes = at::randn({kClasses, 1, 28, 28}, generator);
  auto make_split = [&](int64_t n) {
    Split split;
    split.labels = at::randint(kClasses, {n}, generator, torch::kInt64);
    // Noise as strong as the signal: learnable, but not in one step.
    split.images = prototypes.index_select(0, split.labels) + at::randn({n, 1, 28, 28}, generator);
    return split;
  };
  Dataset data;
  data.train = make_split(train_size);
  data.test = make_split(test_size);
  data.description = "synthetic(seed=" + std::to_string(seed) + ")";
  return data;
}

}  // namespace fabriclab::trainer
