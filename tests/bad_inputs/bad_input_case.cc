#include "tests/bad_inputs/bad_input_case.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace fabriclab::bad_inputs {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

std::string where_of(const std::string& file, const toml::node& node) {
  return file + ":" + std::to_string(node.source().begin.line);
}

std::vector<std::string> strings(const toml::node* node, const std::string& where,
                                 const std::string& key) {
  std::vector<std::string> out;
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array) fail(where, "'" + key + "': expected an array of strings");
  for (const toml::node& item : *array) {
    if (!item.is_string()) fail(where, "'" + key + "': expected an array of strings");
    out.push_back(item.as_string()->get());
  }
  return out;
}

std::map<std::string, std::string> string_table(const toml::node* node, const std::string& where,
                                                const std::string& key) {
  std::map<std::string, std::string> out;
  if (!node) return out;
  const toml::table* table = node->as_table();
  if (!table) fail(where, "'" + key + "': expected a table of strings");
  for (const auto& [name, value] : *table) {
    if (!value.is_string()) fail(where, "'" + key + "." + std::string(name.str()) + "': expected a string");
    out[std::string(name.str())] = value.as_string()->get();
  }
  return out;
}

// A gtest parameter name: letters, digits and underscores.
std::string test_name(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// Where the case itself writes `text` (an argument, a file, an edit, a
// variable), or nullptr: an `expected` found there is the user's token
// echoed back, not what would have been right.
const std::string* own_input_holding(const BadInputCase& c, const std::string& text) {
  static const std::string kArgs = "args", kFiles = "files", kEdits = "edit", kEnv = "env";
  for (const std::string& arg : c.args)
    if (arg.find(text) != std::string::npos) return &kArgs;
  for (const auto& [path, content] : c.files)
    if (content.find(text) != std::string::npos) return &kFiles;
  for (const Edit& e : c.edits)
    if (e.to.find(text) != std::string::npos) return &kEdits;
  for (const auto& [key, value] : c.env)
    if (value.find(text) != std::string::npos) return &kEnv;
  return nullptr;
}

BadInputCase read_case(const std::string& file, const std::string& stem, const toml::table& t) {
  static const std::set<std::string> kKeys = {"name", "args", "files", "binary_files", "copy",
                                              "edit", "env",  "exit", "message", "expected"};
  const std::string where = where_of(file, t);
  for (const auto& [key, node] : t)
    if (!kKeys.count(std::string(key.str()))) fail(where, "unknown key '" + std::string(key.str()) + "'");
  BadInputCase c;
  c.where = fs::path(where).filename().string();
  const auto name = t["name"].value<std::string>();
  if (!name || name->empty()) fail(where, "every case needs a 'name'");
  c.name = test_name(stem + "_" + *name);
  c.args = strings(t.get("args"), where, "args");
  if (!t.get("args")) fail(where, "'args': the subcommand and its arguments ([] for none)");
  c.files = string_table(t.get("files"), where, "files");
  c.binary_files = string_table(t.get("binary_files"), where, "binary_files");
  c.copies = string_table(t.get("copy"), where, "copy");
  c.env = string_table(t.get("env"), where, "env");
  if (const toml::array* edits = t["edit"].as_array()) {
    for (const toml::node& e : *edits) {
      const toml::table* edit = e.as_table();
      if (!edit) fail(where, "'edit': expected [[case.edit]] tables");
      Edit out{edit->get("file") ? (*edit)["file"].value_or(std::string()) : "",
               (*edit)["from"].value_or(std::string()), (*edit)["to"].value_or(std::string())};
      if (out.file.empty() || out.from.empty())
        fail(where_of(file, e), "an edit needs 'file', 'from' and 'to'");
      c.edits.push_back(out);
    }
  }
  c.exit_code = static_cast<int>(t["exit"].value_or(int64_t{2}));
  c.message = strings(t.get("message"), where, "message");
  if (c.message.empty()) fail(where, "'message': the words the error must contain");
  c.expected = t["expected"].value_or(std::string());
  // One word ("expected") is a keyword, not what was expected.
  if (c.expected.find(' ') == std::string::npos)
    fail(where, "'expected': the words of the message saying what would have been right "
                "(\"expected a number\"), not only the offending token");
  if (const std::string* echo = own_input_holding(c, c.expected))
    fail(where, "'expected' = \"" + c.expected + "\" is the case's own input (" + *echo +
                    "); give the words saying what would have been right");
  return c;
}

}  // namespace

std::vector<BadInputCase> load_cases(const std::string& folder) {
  std::vector<std::string> manifests;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().extension() == ".toml") manifests.push_back(entry.path().string());
  std::sort(manifests.begin(), manifests.end());
  std::vector<BadInputCase> cases;
  std::set<std::string> names;
  for (const std::string& file : manifests) {
    toml::table root;
    try {
      root = toml::parse_file(file);
    } catch (const toml::parse_error& e) {
      fail(file + ":" + std::to_string(e.source().begin.line), std::string(e.description()));
    }
    const toml::array* array = root["case"].as_array();
    if (!array) fail(file, "expected [[case]] tables");
    const std::string stem = fs::path(file).stem().string();
    for (const toml::node& node : *array) {
      if (!node.is_table()) fail(file, "expected [[case]] tables");
      BadInputCase c = read_case(file, stem, *node.as_table());
      if (!names.insert(c.name).second) fail(where_of(file, node), "a second case named " + c.name);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

std::string expand(const std::string& text, const std::string& dir, const std::string& src) {
  std::string out = text;
  for (const auto& [word, value] : {std::pair<std::string, std::string>{"{dir}", dir}, {"{src}", src}}) {
    for (size_t at = out.find(word); at != std::string::npos; at = out.find(word, at + value.size()))
      out.replace(at, word.size(), value);
  }
  return out;
}

}  // namespace fabriclab::bad_inputs
