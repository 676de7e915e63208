// The cast the page's player gets (runner/page/player_cast.h): sanitized as
// replay does, markers relabelled and merged, and still a valid asciicast v2.
#include <gtest/gtest.h>

#include <sstream>

#include "runner/page/player_cast.h"

namespace fabriclab::runner::page {
namespace {

Cast cast_of(const std::string& events) {
  std::istringstream in(R"({"version": 2, "width": 80, "height": 24, "title": "t\u001b]0;x\u0007"})"
                        "\n" +
                        events);
  return parse_cast(in, "test.cast");
}

// The player's input read back with fabriclab's own reader.
Cast reread(const PlayerCast& cast) {
  std::istringstream in(cast.asciicast);
  return parse_cast(in, "player.cast");
}

TEST(PlayerCast, RemovesTerminalAttacksAsReplayDoes) {
  const Cast cast = cast_of(R"([0.1, "o", "hello \u001b]52;c;ZXZpbA==\u0007world\r\n"])"
                            "\n"
                            R"([0.2, "o", "\u001b[6n\u001b[31mred\u001b[0m"])"
                            "\n"
                            R"([0.3, "o", "split \u001b]2;ti"])"
                            "\n"
                            R"([0.4, "o", "tle\u0007done"])"
                            "\n");
  const PlayerCast player = player_cast(cast);
  const Cast back = reread(player);
  std::string text;
  for (const CastEvent& e : back.events) text += e.data;
  EXPECT_EQ(text, "hello world\r\n\x1b[31mred\x1b[0msplit done");
  EXPECT_EQ(player.removed, 3u);
  EXPECT_EQ(back.header.title, "t") << "the title as plain text, its OSC gone";
  EXPECT_EQ(back.header.width, 80);
}

TEST(PlayerCast, ScenarioMarkersBecomeLabelsAndNeighboursMerge) {
  const Cast cast = cast_of(R"([0.0, "m", "scenario clean: start"])"
                            "\n"
                            R"([1.0, "o", "x"])"
                            "\n"
                            R"([10.0, "m", "scenario clean: completed"])"
                            "\n"
                            R"([10.0001, "m", "scenario both: start"])"
                            "\n"
                            R"([40.0, "m", "scenario both: stalled"])"
                            "\n"
                            R"([40.2, "m", "scenario late: start"])"
                            "\n"
                            R"([70.0, "m", "scenario late: deadline"])"
                            "\n"
                            R"([71.0, "m", "a \u001b[31mplain\u001b[0m note\r\n"])"
                            "\n"
                            R"([72.0, "i", "typed"])"
                            "\n"
                            R"([72.0, "r", "100x30"])"
                            "\n");
  const PlayerCast player = player_cast(cast);
  EXPECT_EQ(player.labels,
            (std::vector<std::string>{"clean starts", "clean completed / both starts",
                                      "both STALLED: stall declared / late starts",
                                      "late DEADLINE: stopped at its deadline", "a plain note"}));
  ASSERT_EQ(player.scenarios.size(), 6u);
  EXPECT_EQ(player.scenarios[2].scenario, "both");
  EXPECT_EQ(player.scenarios[2].status, "start");
  EXPECT_EQ(player.scenarios[2].marker, 1);
  EXPECT_EQ(player.scenarios[3].status, "stalled");
  EXPECT_EQ(player.scenarios[3].marker, 2);

  const Cast back = reread(player);
  std::vector<std::string> codes;
  for (const CastEvent& e : back.events) codes.push_back(e.code);
  EXPECT_EQ(codes, (std::vector<std::string>{"m", "o", "m", "m", "m", "m"}))
      << "markers in time order with the output; input and resize left out";
}

TEST(PlayerCast, AHugeLineStaysOneEvent) {
  const std::string big(2 * 1024 * 1024, 'x');
  const Cast cast = cast_of("[0.5, \"o\", \"" + big + "\"]\n");
  const Cast back = reread(player_cast(cast));
  ASSERT_EQ(back.events.size(), 1u);
  EXPECT_EQ(back.events[0].data.size(), big.size());
}

TEST(PlayerCast, AHeaderAloneStillGivesThePlayerAnEvent) {
  const Cast back = reread(player_cast(cast_of("")));
  ASSERT_EQ(back.events.size(), 1u);
  EXPECT_EQ(back.events[0].code, "o");
  EXPECT_EQ(back.events[0].data, "");
}

}  // namespace
}  // namespace fabriclab::runner::page
