#include "runner/scenario/impair_change.h"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "common/input_error.h"
#include "netem/spec_parse.h"

namespace fabriclab::runner {
namespace {

class ImpairChange : public FaultAction {
 public:
  ImpairChange(std::string words, std::vector<ImpairPlace> places, std::vector<std::string> links,
               netem::Backend* backend)
      : words_(std::move(words)),
        spec_(netem::parse_spec(words_)),
        places_(std::move(places)),
        links_(std::move(links)),
        backend_(backend),
        added_(places_.size()) {
    for (const ImpairPlace& place : places_) {
      if (!place.own && !backend_)
        throw std::logic_error("impair change: a place without an impairment and no backend");
      // The scenario's words were parsed when it was loaded; again here, for
      // the spec to restore.
      own_specs_.push_back(place.own ? netem::parse_spec(place.own_words) : netem::Spec{});
    }
  }

  ~ImpairChange() override = default;  // LinkFault ends it; what it added goes with added_

  void begin() override {
    size_t done = 0;
    try {
      for (; done < places_.size(); ++done) set(done, /*faulted=*/true);
    } catch (...) {
      while (done > 0) {
        --done;
        try {
          set(done, false);
        } catch (const std::exception& e) {
          spdlog::warn("impair change: could not restore {}: {}", places_[done].target.device,
                       e.what());
        }
      }
      throw;
    }
  }

  // Every place back, even when one refuses; the first refusal is thrown.
  void end() override {
    std::string first_error;
    for (size_t i = 0; i < places_.size(); ++i) {
      try {
        set(i, false);
      } catch (const std::exception& e) {
        if (first_error.empty()) first_error = e.what();
      }
    }
    if (!first_error.empty())
      throw std::runtime_error("impair change: could not restore the impairment: " + first_error);
  }

  nlohmann::json links() const override { return links_; }

  nlohmann::json begin_fields() const override {
    return {{"spec", words_}, {"restore", own_words()}};
  }
  nlohmann::json end_fields() const override { return {{"spec", own_words()}}; }

 private:
  // The scenario's own words ("" = none): one spec on all its links, as
  // the runner gives them.
  std::string own_words() const {
    for (const ImpairPlace& place : places_)
      if (place.own) return place.own_words;
    return "";
  }

  void set(size_t i, bool faulted) {
    ImpairPlace& place = places_[i];
    if (place.own) {
      place.own->change(faulted ? spec_ : own_specs_[i]);
    } else if (faulted) {
      added_[i] = backend_->apply(place.target, spec_);
    } else {
      added_[i].reset();  // removes it
    }
  }

  std::string words_;
  netem::Spec spec_;
  std::vector<ImpairPlace> places_;
  std::vector<netem::Spec> own_specs_;
  std::vector<std::string> links_;
  netem::Backend* backend_;
  std::vector<std::unique_ptr<netem::Applied>> added_;  // where the scenario had none
};

}  // namespace

std::unique_ptr<FaultAction> change_impairment(std::string words, std::vector<ImpairPlace> places,
                                               std::vector<std::string> links,
                                               netem::Backend* backend) {
  return std::make_unique<ImpairChange>(std::move(words), std::move(places), std::move(links),
                                        backend);
}

}  // namespace fabriclab::runner
