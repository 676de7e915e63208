// The cast reader: valid v2 files parse; every kind of bad file is an
// InputError naming the file and line, never a crash.
#include "runner/cast/cast_reader.h"

#include <gtest/gtest.h>

#include <sstream>

#include "common/input_error.h"

namespace fabriclab::runner {
namespace {

const std::string kHeader =
    R"({"version": 2, "width": 80, "height": 24, "timestamp": 1795320000, "title": "t"})";

Cast parse(const std::string& text) {
  std::istringstream in(text);
  return parse_cast(in, "x.cast");
}

// The error message for `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CastReader, ParsesHeaderAndEvents) {
  const Cast cast = parse(kHeader + "\n" + R"([0.5, "o", "hello\r\n"])" + "\n" +
                          R"([1.25, "m", "scenario clean: start"])" + "\n\n" +
                          R"([1.25, "r", "100x30"])" + "\n" + R"([2, "x", "future"])");
  EXPECT_EQ(cast.header.width, 80);
  EXPECT_EQ(cast.header.height, 24);
  EXPECT_EQ(cast.header.title, "t");
  EXPECT_DOUBLE_EQ(*cast.header.timestamp_unix_s, 1795320000);
  ASSERT_EQ(cast.events.size(), 4u);
  EXPECT_EQ(cast.events[0].data, "hello\r\n");
  EXPECT_EQ(cast.events[1].code, "m");
  EXPECT_EQ(cast.events[1].line, 3);
  EXPECT_EQ(cast.events[2].line, 5);  // the blank line counts
  EXPECT_DOUBLE_EQ(cast.duration_s(), 2.0);
}

TEST(CastReader, MinimalHeaderIsEnough) {
  const Cast cast = parse(R"({"version": 2, "width": 1, "height": 1})");
  EXPECT_TRUE(cast.events.empty());
  EXPECT_EQ(cast.header.title, "");
  EXPECT_FALSE(cast.header.timestamp_unix_s.has_value());
}

TEST(CastReader, WrongVersionsSayWhichIsSupported) {
  EXPECT_EQ(error_of(R"({"version": 3, "term": {"cols": 80, "rows": 24}})"
                     "\n"),
            "x.cast:1: asciicast version 3 is not supported: this player reads version 2 "
            "(asciinema 2.x records it; re-record, or convert the file to asciicast v2)");
  // v1: one pretty-printed JSON document.
  const std::string v1 =
      "{\n  \"version\": 1,\n  \"width\": 80,\n  \"height\": 24,\n"
      "  \"stdout\": [[0.1, \"hi\"]]\n}\n";
  EXPECT_NE(error_of(v1).find("x.cast: asciicast version 1 is not supported"), std::string::npos)
      << error_of(v1);
  EXPECT_NE(error_of(R"({"version": "2", "width": 80, "height": 24})")
                .find("x.cast:1: header: \"version\" must be the integer 2"),
            std::string::npos);
}

TEST(CastReader, BadHeadersNameWhatIsWrong) {
  EXPECT_EQ(error_of(""), "x.cast:1: empty; expected an asciicast v2 header line and events");
  EXPECT_EQ(error_of("\n\n"), "x.cast:1: empty; expected an asciicast v2 header line and events");
  EXPECT_NE(error_of("hello world\n").find("x.cast:1: header: not JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, \"o\", \"x\"]\n").find("x.cast:1: header: expected a JSON object"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"version": 2, "height": 24})")
          .find("x.cast:1: header: \"width\" must be a positive integer (columns/rows), and is "
                "missing"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"version": 2, "width": -3, "height": 24})").find("not -3"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"version": 2, "width": 80, "height": 24, "title": 7})")
                .find("x.cast:1: header: \"title\" must be a string"),
            std::string::npos);
}

// Found by tests/fuzz/fuzz_session_cast: nlohmann reports a number beyond a
// double as out_of_range, not parse_error; it escaped the reader.
TEST(CastReader, ANumberBeyondADoubleIsAnErrorWithItsLine) {
  EXPECT_NE(error_of(kHeader + "\n[666666666666666e666, \"o\", \"a\"]\n")
                .find("x.cast:2: not JSON: number overflow parsing '666666666666666e666'"),
            std::string::npos)
      << error_of(kHeader + "\n[666666666666666e666, \"o\", \"a\"]\n");
}

TEST(CastReader, BadEventsNameTheirLine) {
  EXPECT_NE(error_of(kHeader + "\n[0.1, \"o\", \"a\"]\n{oops\n").find("x.cast:3: not JSON: "),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n[0.1, \"o\"]\n")
                .find("x.cast:2: event: expected [time, code, data] (a number and two strings), "
                      "got [0.1,\"o\"]"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n[\"0.1\", \"o\", \"a\"]\n").find("x.cast:2: event: expected"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n[0.1, \"o\", 5]\n").find("x.cast:2: event: expected"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n{\"t\": 1}\n").find("x.cast:2: event: expected"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n[-1, \"o\", \"a\"]\n").find("x.cast:2: event: time must be"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "\n[1, \"\", \"a\"]\n").find("x.cast:2: event: empty event code"),
            std::string::npos);
}

TEST(CastReader, TimesGoingBackwardsAreAnError) {
  EXPECT_EQ(error_of(kHeader + "\n[4, \"o\", \"a\"]\n[3.5, \"o\", \"b\"]\n"),
            "x.cast:3: time 3.5 s is before the previous event's 4 s (times must not go "
            "backwards)");
}

TEST(CastReader, ACutOffLastLineIsReportedAsTruncated) {
  EXPECT_EQ(error_of(kHeader + "\n[0.1, \"o\", \"a\"]\n[0.2, \"o\", \"hel"),
            "x.cast:3: truncated: the file ends inside this event, expected a whole "
            "[time, code, data] line (was the recording interrupted?)");
  // A complete last event without its newline is fine.
  EXPECT_EQ(parse(kHeader + "\n[0.1, \"o\", \"a\"]").events.size(), 1u);
}

TEST(CastReader, InvalidUtf8AndBinaryGarbageAreErrorsNotCrashes) {
  EXPECT_NE(error_of(kHeader + "\n[0.1, \"o\", \"\xff\xfe\"]\n").find("x.cast:2: not JSON"),
            std::string::npos);
  std::string garbage = kHeader + "\n";
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>(i);
  EXPECT_NE(error_of(garbage).find("x.cast:2: "), std::string::npos);
  EXPECT_NE(error_of(std::string("\0\0\0", 3)).find("x.cast:1: header: not JSON"),
            std::string::npos);
}

TEST(CastReader, ErrorMessagesCarryNoEscapeSequences) {
  // A hostile file's bytes quoted in a message must not reach the terminal raw.
  for (const std::string& bad : {kHeader + "\n\x1b]52;c;QUFB\x07\n",
                                 kHeader + "\n[0.1, \"\xc2\x9b"
                                           "6n\"]\n",
                                 std::string("\x1b]0;title\x07\n")}) {
    const std::string message = error_of(bad);
    ASSERT_FALSE(message.empty());
    for (char c : message) {
      const auto b = static_cast<unsigned char>(c);
      EXPECT_TRUE(b >= 0x20 && b < 0x7f) << "byte " << int(b) << " in: " << message;
    }
  }
}

TEST(CastReader, MissingFileAndDirectoryAreInputErrors) {
  try {
    read_cast("/nonexistent/session.cast");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/session.cast: not found"),
              std::string::npos);
  }
  EXPECT_THROW(read_cast("/tmp"), InputError);
}

}  // namespace
}  // namespace fabriclab::runner
