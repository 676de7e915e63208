#include "runner/lab/draw.h"

#include <regex>
#include <set>

#include "common/input_error.h"
#include "runner/lab/seed_pick.h"
#include "runner/lab/sweep.h"
#include "runner/lab/toml_file.h"

namespace fabriclab::runner {

namespace {

const std::set<std::string> kDrawKeys = {"name", "choices"};


// "75ms" -> 75 and "ms"; a word ("reno") -> no number.
void split_number(DrawChoice& choice) {
  static const std::regex kNumberUnit(R"((-?[0-9]+(?:\.[0-9]+)?)([a-z%]*))");
  std::smatch m;
  if (std::regex_match(choice.text, m, kNumberUnit)) {
    choice.number = std::stod(m[1]);
    choice.unit = m[2];
  }
}

Draw read_draw(const std::string& path, const toml::table& t) {
  Draw draw;
  draw.line = line_of(t);
  for (const auto& [key, node] : t) {
    if (!kDrawKeys.count(std::string(key.str())))
      throw input_error_at(path, line_of(node),
                           "unknown key '" + std::string(key.str()) +
                               "' in [[draw]] (known: choices, name)");
  }
  const toml::node* name = t.get("name");
  static const std::regex kName("[a-z][a-z0-9_]*");
  if (!name || !name->is_string() || !std::regex_match(name->as_string()->get(), kName))
    throw input_error_at(path, name ? line_of(*name) : draw.line,
                         "key 'name': expected a name [a-z][a-z0-9_]* (e.g. \"added_latency\")");
  draw.name = name->as_string()->get();
  const toml::node* choices = t.get("choices");
  const toml::array* array = choices ? choices->as_array() : nullptr;
  const long choices_line = choices ? line_of(*choices) : draw.line;
  if (!array || array->empty())
    throw input_error_at(path, choices_line,
                         "key 'choices': draw '" + draw.name +
                             "' needs a non-empty list of choices, e.g. [\"50ms\", \"100ms\"]");
  for (const toml::node& item : *array) {
    DrawChoice choice;
    if (const auto number = toml_number(item)) {
      choice.written_as_number = true;
      choice.text = sweep_value_text(*number);
      choice.number = *number;
    } else if (item.is_string() && !item.as_string()->get().empty()) {
      choice.text = item.as_string()->get();
      split_number(choice);
    } else {
      throw input_error_at(path, line_of(item),
                           "key 'choices': expected numbers or non-empty strings");
    }
    if (!draw.choices.empty()) {
      const DrawChoice& first = draw.choices.front();
      if (choice.written_as_number != first.written_as_number)
        throw input_error_at(path, line_of(item),
                             "key 'choices': expected all numbers or all strings, not both");
      if (first.number.has_value() != choice.number.has_value() || first.unit != choice.unit)
        throw input_error_at(path, line_of(item),
                             "key 'choices': \"" + choice.text + "\" is not in the unit of \"" +
                                 first.text + "\" (expected one unit for every choice)");
    }
    if (draw.index_of(choice.text))
      throw input_error_at(path, line_of(item),
                           "key 'choices': \"" + choice.text + "\" is there twice");
    draw.choices.push_back(choice);
  }
  return draw;
}

const Draw* find_draw(const std::vector<Draw>& draws, const std::string& name) {
  for (const Draw& d : draws)
    if (d.name == name) return &d;
  return nullptr;
}

std::string draw_names(const std::vector<Draw>& draws) {
  std::string out;
  for (const Draw& d : draws) out += (out.empty() ? "" : ", ") + d.name;
  return out.empty() ? "none" : out;
}

class Filler {
 public:
  Filler(const std::string& path, const std::vector<Draw>& draws, const Conditions& conditions)
      : path_(path), draws_(draws), conditions_(conditions) {}

  void node(toml::node& n) {
    if (toml::table* t = n.as_table()) {
      for (auto&& [key, value] : *t) node(value);
    } else if (toml::array* a = n.as_array()) {
      for (toml::node& item : *a) node(item);
    } else if (auto* s = n.as_string()) {
      s->get() = fill(s->get(), line_of(n));
    }
  }

 private:
  std::string fill(const std::string& text, long line) const {
    static const std::regex kPlaceholder(R"(\{([a-z][a-z0-9_]*)\})");
    std::string out;
    auto begin = text.cbegin();
    std::smatch m;
    while (std::regex_search(begin, text.cend(), m, kPlaceholder)) {
      const std::string name = m[1];
      if (!find_draw(draws_, name))
        throw input_error_at(path_, line,
                             "{" + name + "} is not a drawn parameter (expected a [[draw]] name: " +
                                 draw_names(draws_) + ")");
      out.append(begin, m[0].first);
      out += conditions_.at(name);
      begin = m[0].second;
    }
    out.append(begin, text.cend());
    return out;
  }

  const std::string& path_;
  const std::vector<Draw>& draws_;
  const Conditions& conditions_;
};

}  // namespace

std::optional<size_t> Draw::index_of(const std::string& text) const {
  for (size_t i = 0; i < choices.size(); ++i)
    if (choices[i].text == text) return i;
  return std::nullopt;
}

std::vector<Draw> read_draws(const std::string& path, const toml::table& root) {
  std::vector<Draw> draws;
  const toml::node* node = root.get("draw");
  if (!node) return draws;
  const toml::array* tables = node->as_array();
  if (!tables || !tables->is_array_of_tables())
    throw input_error_at(path, line_of(*node), "key 'draw': expected [[draw]] tables");
  for (const toml::node& t : *tables) {
    Draw draw = read_draw(path, *t.as_table());
    if (find_draw(draws, draw.name))
      throw input_error_at(path, draw.line, "key 'name': draw '" + draw.name + "' is there twice");
    draws.push_back(std::move(draw));
  }
  return draws;
}

Conditions draw_conditions(const std::vector<Draw>& draws, uint64_t seed) {
  Conditions out;
  for (const Draw& d : draws) out[d.name] = d.choices[seed_pick(seed, d.name, d.choices.size())].text;
  return out;
}

Conditions complete_conditions(const std::vector<Draw>& draws, const Conditions& given,
                               const std::string& where) {
  for (const auto& [name, value] : given) {
    const Draw* d = find_draw(draws, name);
    if (!d)
      throw InputError(where + ": conditions: '" + name + "' is not drawn by this lab (it draws " +
                       draw_names(draws) + ")");
    if (!d->index_of(value)) {
      std::string offered;
      for (const DrawChoice& c : d->choices) offered += (offered.empty() ? "" : ", ") + c.text;
      throw InputError(where + ": conditions: " + name + " = \"" + value +
                       "\" is not one of the lab's choices (" + offered + ")");
    }
  }
  Conditions out = given;
  for (const Draw& d : draws) out.emplace(d.name, d.choices.front().text);
  return out;
}

void fill_conditions(const std::string& path, toml::table& root, const std::vector<Draw>& draws,
                     const Conditions& conditions) {
  Filler filler(path, draws, conditions);
  for (auto&& [key, value] : root)
    if (key.str() != "draw") filler.node(value);
}

namespace {

// "added_latency", "75ms" -> "added latency 75 ms".
std::string condition_words(const std::string& name, const std::string& text) {
  DrawChoice c;
  c.text = text;
  split_number(c);
  std::string words = name;
  for (char& ch : words)
    if (ch == '_') ch = ' ';
  std::string value = c.text;
  if (c.number && !c.unit.empty() && c.unit != "%")
    value = c.text.substr(0, c.text.size() - c.unit.size()) + " " + c.unit;
  return words + " " + value;
}

}  // namespace

std::string conditions_text(const std::vector<Draw>& draws, const Conditions& conditions) {
  std::string out;
  for (const Draw& d : draws) {
    const auto it = conditions.find(d.name);
    if (it != conditions.end()) out += (out.empty() ? "" : ", ") + condition_words(d.name, it->second);
  }
  return out;
}

std::string recorded_conditions_text(const nlohmann::json& value) {
  std::string out;
  for (const auto& [name, text] : conditions_from_json(value))
    out += (out.empty() ? "" : ", ") + condition_words(name, text);
  return out;
}

nlohmann::json conditions_json(const std::vector<Draw>& draws, const Conditions& conditions) {
  nlohmann::json out = nlohmann::json::object();
  for (const Draw& d : draws) {
    const auto it = conditions.find(d.name);
    if (it == conditions.end()) continue;
    const DrawChoice& c = d.choices[d.index_of(it->second).value_or(0)];
    if (c.written_as_number)
      out[d.name] = *c.number;
    else
      out[d.name] = c.text;
  }
  return out;
}

Conditions conditions_from_json(const nlohmann::json& value) {
  Conditions out;
  if (!value.is_object()) return out;
  for (const auto& [name, v] : value.items()) {
    if (v.is_string())
      out[name] = v.get<std::string>();
    else if (v.is_number())
      out[name] = sweep_value_text(v.get<double>());
    else
      throw InputError("run.json conditions: '" + name + "' is neither a string nor a number");
  }
  return out;
}

}  // namespace fabriclab::runner
