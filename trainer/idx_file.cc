#include "trainer/idx_file.h"

#include <zlib.h>

#include <memory>

#include "common/input_error.h"

namespace fabriclab::trainer {
namespace {

// IDX magic: 0x00 0x00 <type 0x08 = ubyte> <rank>.
constexpr uint32_t kUbyteMagicBase = 0x00000800;
constexpr int64_t kMaxElements = int64_t{1} << 32;  // 4 GiB: anything larger is not MNIST

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

uint32_t read_be32(gzFile f, const std::string& path, const char* what) {
  unsigned char b[4];
  int n = gzread(f, b, sizeof b);
  if (n != static_cast<int>(sizeof b)) {
    throw InputError(path + ": truncated header (reading " + what + ")");
  }
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

IdxFile read_idx_file(const std::string& path, int expected_rank) {
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw InputError(path + ": cannot open");

  const uint32_t magic = read_be32(file.get(), path, "magic number");
  const uint32_t expected_magic = kUbyteMagicBase | static_cast<uint32_t>(expected_rank);
  if (magic != expected_magic) {
    throw InputError(path + ": not an IDX file of rank " + std::to_string(expected_rank) +
                     " (magic " + std::to_string(magic) + ", expected " +
                     std::to_string(expected_magic) + ")");
  }

  IdxFile idx;
  int64_t elements = 1;
  for (int i = 0; i < expected_rank; ++i) {
    const int64_t dim = read_be32(file.get(), path, "dimensions");
    if (dim <= 0 || elements * dim > kMaxElements) {
      throw InputError(path + ": implausible dimension " + std::to_string(dim));
    }
    idx.dims.push_back(dim);
    elements *= dim;
  }

  idx.data.resize(static_cast<size_t>(elements));
  size_t done = 0;
  while (done < idx.data.size()) {
    // gzread takes an unsigned int count: read in chunks.
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(idx.data.size() - done, 1u << 30));
    const int n = gzread(file.get(), idx.data.data() + done, chunk);
    if (n < 0) {
      int code = 0;
      throw InputError(path + ": corrupt (" + gzerror(file.get(), &code) + ")");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  if (done != idx.data.size()) {
    throw InputError(path + ": truncated: header promises " + std::to_string(idx.data.size()) +
                     " bytes of data, file has " + std::to_string(done));
  }
  return idx;
}

}  // namespace fabriclab::trainer
