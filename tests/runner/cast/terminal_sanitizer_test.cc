// The replay safety filter: what may act on the viewer's terminal is removed,
// colours and cursor movement stay, split sequences are still recognised.
#include "runner/cast/terminal_sanitizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fabriclab::runner {
namespace {

std::string sanitize(const std::string& in, std::size_t* removed = nullptr) {
  TerminalSanitizer s;
  std::string out = s.feed(in);
  out += s.finish();
  if (removed != nullptr) *removed = s.removed();
  return out;
}

// Feeds `in` one byte per call: the hardest split.
std::string sanitize_bytewise(const std::string& in) {
  TerminalSanitizer s;
  std::string out;
  for (char c : in) out += s.feed(std::string(1, c));
  return out + s.finish();
}

TEST(TerminalSanitizer, PlainTextAndKeptControlsPassUnchanged) {
  const std::string text = "step 10  loss 0.52\r\n\tok\b!\n";
  EXPECT_EQ(sanitize(text), text);
  const std::string utf8 = "\u2500\u2500 scenario \u00e9t\u00e9 \u2713 \U0001F600\r\n";
  EXPECT_EQ(sanitize(utf8), utf8);
  EXPECT_EQ(sanitize_bytewise(utf8), utf8);
}

TEST(TerminalSanitizer, ColoursCursorMovementAndEraseAreKept) {
  const std::string text =
      "\x1b[1;31mred\x1b[0m \x1b[38;5;208morange\x1b[m \x1b[38:2:10:20:30mrgb\x1b[0m"
      "\r\x1b[Kprogress\x1b[2A\x1b[3B\x1b[10C\x1b[D\x1b[5;1H\x1b[2J\x1b[?25l\x1b[?25h"
      "\x1b"
      "7\x1b"
      "8\x1b(0qqq\x1b(B";
  std::size_t removed = 0;
  EXPECT_EQ(sanitize(text, &removed), text);
  EXPECT_EQ(removed, 0u);
}

TEST(TerminalSanitizer, Osc52ClipboardIsRemovedWithItsPayload) {
  std::size_t removed = 0;
  // BEL-terminated and ST-terminated forms.
  EXPECT_EQ(sanitize("a\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07"
                     "b",
                     &removed),
            "ab");
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(sanitize("a\x1b]52;c;Y3VybA==\x1b\\b"), "ab");
  // The payload must not leak even when split at every byte.
  const std::string out = sanitize_bytewise("x\x1b]52;c;SECRETPAYLOAD\x07y");
  EXPECT_EQ(out, "xy");
}

TEST(TerminalSanitizer, TitlesHyperlinksAndPaletteOscAreRemoved) {
  EXPECT_EQ(sanitize("\x1b]0;evil title\x07text"), "text");
  EXPECT_EQ(sanitize("\x1b]2;title\x1b\\text"), "text");
  // A hyperlink: the link goes, its visible text stays.
  EXPECT_EQ(sanitize("\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ here"), "click here");
  EXPECT_EQ(sanitize("\x1b]4;1;rgb:ff/00/00\x07ok"), "ok");
}

TEST(TerminalSanitizer, QueriesThatMakeTheTerminalAnswerAreRemoved) {
  std::size_t removed = 0;
  // Title report, device attributes (primary/secondary), status reports,
  // DECID, ENQ (answerback), DECRQM.
  EXPECT_EQ(
      sanitize("a\x1b[21tb\x1b[cc\x1b[>0cd\x1b[6ne\x1b[5nf\x1bZg\x05h\x1b[?2004$pi", &removed),
      "abcdefghi");
  EXPECT_EQ(removed, 8u);
  // Window manipulation, mouse reporting, alternate screen, full reset.
  EXPECT_EQ(sanitize("\x1b[8;100;300t\x1b[?1000h\x1b[?1049h\x1b"
                     "cok"),
            "ok");
}

TEST(TerminalSanitizer, DcsApcPmSosStringsAreRemoved) {
  EXPECT_EQ(sanitize("a\x1bP+q544e\x1b\\b"), "ab");       // DCS (XTGETTCAP)
  EXPECT_EQ(sanitize("a\x1b_Gf=100;AAAA\x1b\\b"), "ab");  // APC (kitty graphics)
  EXPECT_EQ(sanitize("a\x1b^pm\x1b\\b\x1bXsos\x1b\\c"), "abc");
  // ESC inside a string ends it and starts the next sequence (which is kept).
  EXPECT_EQ(sanitize("\x1bPpayload\x1b[1mbold"), "\x1b[1mbold");
  // CAN aborts a string; what follows is text again.
  EXPECT_EQ(sanitize("\x1b]52;c;AAA\x18visible"), "visible");
}

TEST(TerminalSanitizer, EightBitC1ControlsAreRemoved) {
  // Raw 8-bit: CSI c (DA), OSC 52, DCS, DECID, NEL.
  EXPECT_EQ(sanitize("a\x9b"
                     "cb"),
            "ab");
  EXPECT_EQ(sanitize("a\x9d"
                     "52;c;QUFB\x07"
                     "b"),
            "ab");
  EXPECT_EQ(sanitize("a\x90q\x9c"
                     "b\x9a\x85"
                     "c"),
            "abc");
  // The same as UTF-8 code points U+009B, U+009D, U+009A.
  EXPECT_EQ(sanitize("a\xc2\x9b"
                     "6nb"),
            "ab");
  EXPECT_EQ(sanitize("a\xc2\x9d"
                     "0;title\x07"
                     "b\xc2\x9a"
                     "c"),
            "abc");
  // An allowed C1 CSI comes out in its 7-bit form.
  EXPECT_EQ(sanitize("\xc2\x9b"
                     "1mX"),
            "\x1b[1mX");
  EXPECT_EQ(sanitize("\x9b"
                     "0mX"),
            "\x1b[0mX");
  // UTF-8 continuation bytes in 0x80..0x9F are text, not C1: U+2500 is E2 94 80.
  EXPECT_EQ(sanitize("\xe2\x94\x80"), "\xe2\x94\x80");
  // Overlong ESC (C0 9B) cannot sneak a CSI through.
  EXPECT_EQ(sanitize("\xc0\x9b"
                     "cX"),
            "X");
}

TEST(TerminalSanitizer, SequencesSplitAcrossEventsAreRecognised) {
  TerminalSanitizer s;
  std::string out;
  for (const std::string& part :
       std::vector<std::string>{"loss \x1b[3", "2m0.5\x1b", "[0m \x1b]5", "2;c;Zm9v", "\x07",
                                "done \xc2", "\x9b", "c!"}) {
    out += s.feed(part);
  }
  out += s.finish();
  EXPECT_EQ(out, "loss \x1b[32m0.5\x1b[0m done !");
  EXPECT_EQ(s.removed(), 2u);
}

TEST(TerminalSanitizer, BellShiftAndOtherC0AreRemoved) {
  EXPECT_EQ(sanitize("a\x07"
                     "b\x0e"
                     "c\x0f"
                     "d\x0b"
                     "e\x0c"
                     "f\x7f"
                     "g"),
            "abcdefg");
}

TEST(TerminalSanitizer, OverlongAndUnfinishedSequencesAreRemoved) {
  const std::string long_csi = "\x1b[" + std::string(200, '1') + "mX";
  EXPECT_EQ(sanitize(long_csi), "X");
  std::size_t removed = 0;
  EXPECT_EQ(sanitize("ok\x1b]52;c;never-ended", &removed), "ok");
  EXPECT_EQ(removed, 1u);
  EXPECT_EQ(sanitize("ok\x1b[12"), "ok");
}

TEST(PlainText, RemovesSequencesAndEveryControlCharacter) {
  EXPECT_EQ(plain_text("scenario \x1b[31mclean\x1b[0m:\tstart\r\n\x1b]52;c;QQ==\x07\xc2\x9b"
                       "6n"),
            "scenario clean:start");
  EXPECT_EQ(plain_text("\u2500 \u00e9"), "\u2500 \u00e9");
}

}  // namespace
}  // namespace fabriclab::runner
