// A fixture for lab-file tests: writes `head` + a test's body as the
// lab.toml of a folder of its own, loads it, or returns load_lab()'s
// InputError message (the file:line errors the tests check).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/input_error.h"
#include "runner/lab/lab_definition.h"
#include "tests/runner/test_support.h"

namespace fabriclab::runner {

class LabFileTest : public ::testing::Test {
 protected:
  LabFileTest(std::string folder, std::string head)
      : folder_(std::move(folder)), head_(std::move(head)) {}

  std::string write(const std::string& body) {
    const std::string folder = dir_.path() + "/" + folder_;
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/lab.toml") << head_ << body;
    return folder + "/lab.toml";
  }
  // The InputError's message, or "(no error)".
  std::string error(const std::string& body) {
    try {
      load_lab(write(body));
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  }
  testing::TempDir dir_;

 private:
  std::string folder_;
  std::string head_;
};

}  // namespace fabriclab::runner
