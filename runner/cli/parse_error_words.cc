#include "runner/cli/parse_error_words.h"

#include <vector>

namespace fabriclab::cli {
namespace {

// The subcommands parsed, outermost first: `fabriclab bench allreduce` gives
// the app, bench, allreduce. The last is the one whose flags were wrong.
std::vector<const CLI::App*> parsed_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain = {&app};
  while (!chain.back()->get_subcommands().empty()) chain.push_back(chain.back()->get_subcommands().front());
  return chain;
}

std::string command_line(const std::vector<const CLI::App*>& chain) {
  std::string out = "fabriclab";
  for (size_t i = 1; i < chain.size(); ++i) out += " " + chain[i]->get_name();
  return out;
}

// CLI11's type names (INT, UINT, FLOAT, ...) in words.
std::string type_in_words(const std::string& type) {
  if (type.rfind("UINT", 0) == 0) return "a whole number (0 or more)";
  if (type.rfind("INT", 0) == 0) return "an integer";
  if (type.rfind("FLOAT", 0) == 0) return "a number";
  return "a value of type " + type;
}

// "Could not convert: --steps = many" -> "--steps: expected an integer, got 'many'".
std::string conversion_message(const std::vector<const CLI::App*>& chain, const std::string& what) {
  const std::string prefix = "Could not convert: ";
  const size_t equals = what.find(" = ");
  if (what.rfind(prefix, 0) != 0 || equals == std::string::npos) return what;
  const std::string name = what.substr(prefix.size(), equals - prefix.size());
  const std::string value = what.substr(equals + 3);
  for (auto app = chain.rbegin(); app != chain.rend(); ++app)
    for (const CLI::Option* option : (*app)->get_options())
      if (option->check_name(name))
        return name + ": expected " + type_in_words(option->get_type_name()) + ", got '" + value + "'";
  return what;
}

}  // namespace

std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<const CLI::App*> chain = parsed_chain(app);
  const std::string what = error.what();
  if (dynamic_cast<const CLI::ConversionError*>(&error)) return conversion_message(chain, what);
  if (dynamic_cast<const CLI::ExtrasError*>(&error))
    return what + " (expected only what `" + command_line(chain) + " --help` lists)";
  if (dynamic_cast<const CLI::RequiredError*>(&error) && what.rfind("A subcommand", 0) == 0) {
    std::string names;
    // Hidden subcommands (no group: what the runner runs in a rank) are not the user's to pick.
    for (const CLI::App* sub :
         chain.back()->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
      names += (names.empty() ? "" : ", ") + sub->get_name();
    return what + " (expected one of: " + names + ")";
  }
  return what;
}

}  // namespace fabriclab::cli
