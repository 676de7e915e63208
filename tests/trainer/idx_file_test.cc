#include "trainer/idx_file.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>

#include "common/input_error.h"
#include "tests/support/child_process.h"

namespace fabriclab::trainer {
namespace {

std::vector<uint8_t> idx_bytes(uint32_t magic, std::vector<uint32_t> dims, size_t data_bytes) {
  std::vector<uint8_t> out;
  auto put = [&](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
  };
  put(magic);
  for (uint32_t d : dims) put(d);
  // Pseudo-random bytes: they do not compress, so damage lands in the stream.
  uint32_t state = 12345;
  for (size_t i = 0; i < data_bytes; ++i) {
    state = state * 1664525u + 1013904223u;
    out.push_back(static_cast<uint8_t>(state >> 24));
  }
  return out;
}

class IdxFileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::make_temp_dir("idx-test"); }
  void TearDown() override {
    for (const auto& p : written_) ::unlink(p.c_str());
    ::rmdir(dir_.c_str());
  }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes, bool gzip) {
    const std::string path = dir_ + "/" + name;
    if (gzip) {
      gzFile f = gzopen(path.c_str(), "wb");
      gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
      gzclose(f);
    } else {
      std::FILE* f = std::fopen(path.c_str(), "wb");
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
    written_.push_back(path);
    return path;
  }
  std::string dir_;
  std::vector<std::string> written_;
};

TEST_F(IdxFileTest, ReadsGzippedImages) {
  const auto path = write("images.gz", idx_bytes(2051, {3, 4, 5}, 60), true);
  const IdxFile idx = read_idx_file(path, 3);
  EXPECT_EQ(idx.dims, (std::vector<int64_t>{3, 4, 5}));
  ASSERT_EQ(idx.data.size(), 60u);
  const auto written = idx_bytes(2051, {3, 4, 5}, 60);
  EXPECT_EQ(idx.data, std::vector<uint8_t>(written.begin() + 16, written.end()));
}

TEST_F(IdxFileTest, ReadsPlainLabels) {
  const auto path = write("labels", idx_bytes(2049, {6}, 6), false);
  const IdxFile idx = read_idx_file(path, 1);
  EXPECT_EQ(idx.dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(idx.data.size(), 6u);
}

TEST_F(IdxFileTest, TruncatedFileNamesPathAndByteCounts) {
  const auto path = write("short.gz", idx_bytes(2051, {10, 28, 28}, 1000), true);
  try {
    read_idx_file(path, 3);
    FAIL() << "no error for a truncated file";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("truncated"), std::string::npos) << what;
    EXPECT_NE(what.find("7840"), std::string::npos) << what;
    EXPECT_NE(what.find("1000"), std::string::npos) << what;
  }
}

TEST_F(IdxFileTest, WrongMagicIsRejected) {
  const auto path = write("labels-as-images", idx_bytes(2049, {6}, 6), false);
  try {
    read_idx_file(path, 3);
    FAIL() << "no error for wrong magic";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("magic 2049, expected 2051"), std::string::npos)
        << e.what();
  }
}

TEST_F(IdxFileTest, TruncatedHeaderAndMissingFile) {
  const auto path = write("tiny", {0, 0}, false);
  EXPECT_THROW(read_idx_file(path, 1), InputError);
  EXPECT_THROW(read_idx_file(dir_ + "/absent", 1), InputError);
}

TEST_F(IdxFileTest, CorruptGzipIsAnError) {
  auto bytes = idx_bytes(2051, {100, 28, 28}, 78400);
  std::string path = write("corrupt.gz", bytes, true);
  // Damage the compressed stream in the middle.
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  std::fseek(f, 200, SEEK_SET);
  const char junk[64] = "this is not deflate data; this is not deflate data; xxxxxxxxx";
  std::fwrite(junk, 1, sizeof junk, f);
  std::fclose(f);
  EXPECT_THROW(read_idx_file(path, 3), InputError);
}

}  // namespace
}  // namespace fabriclab::trainer
