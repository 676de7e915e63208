// Reads one IDX file (the MNIST container format: big-endian magic, dims,
// then unsigned bytes), gzip'd or plain, through zlib's gz* stream API.
//
// Why not torch::data::datasets::MNIST: libtorch 1.13's reader hard-codes
// 60000/10000 images and does not notice a truncated file; we need any
// MNIST-format folder and errors that name the file and the byte count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabriclab::trainer {

struct IdxFile {
  std::vector<int64_t> dims;  // e.g. {60000, 28, 28} for images, {60000} for labels
  std::vector<uint8_t> data;  // product(dims) bytes
};

// `expected_rank` is 3 for images (magic 2051), 1 for labels (magic 2049).
// Throws InputError("<path>: ...") when missing, unreadable, wrong magic,
// implausible dims or truncated.
IdxFile read_idx_file(const std::string& path, int expected_rank);

}  // namespace fabriclab::trainer
