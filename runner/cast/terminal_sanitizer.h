// TerminalSanitizer: makes recorded terminal output safe to write to the
// viewer's terminal. A recording is data from someone else; some escape
// sequences make a terminal act -- set the clipboard (OSC 52), answer a query
// by typing into the viewer's shell (DA, DSR, title report CSI 21 t, ENQ/
// answerback, DECID), change its title, resize or move its window, load
// fonts or keys (DCS). Replay passes output through this filter unless --raw.
//
// Policy (recordings/FORMAT.md, "Replaying untrusted recordings"): an
// ALLOW-list; everything not listed is removed whole (introducer, parameters,
// payload), never passed through.
//   kept:    printable text (UTF-8); \r \n \t \b;
//            CSI ... m (SGR: colours, bold, ...), cursor movement and erase:
//            CSI A B C D E F G H f d ` J K X @ P L M S T r s u (no private
//            marker, no intermediates); CSI ?25 h/l (cursor shown/hidden) and
//            CSI ?7 h/l (autowrap);
//            ESC 7, ESC 8 (save/restore cursor), ESC D, ESC E, ESC M;
//            ESC ( B / ESC ( 0 / ESC ) B / ESC ) 0 (ASCII / line-drawing sets).
//   removed: OSC (ESC ] ... BEL or ST) entirely: clipboard (52), titles (0/1/2),
//            hyperlinks (8: the link text stays, the link goes), colours
//            palette (4, 10-19), notifications (9, 777); DCS, SOS, PM, APC
//            strings (ESC P/X/^/_ ... ST); every other CSI (device attributes
//            CSI c, status reports CSI n, window ops and reports CSI t, mode
//            changes such as mouse reporting or the alternate screen, ...);
//            every other ESC sequence (RIS ESC c, DECID ESC Z, keypad modes,
//            charset switches); other C0 controls (BEL, ENQ, SO/SI, ...) and DEL;
//            C1 controls, both as raw 8-bit bytes 0x80-0x9F and as UTF-8
//            U+0080-U+009F (a terminal may act on either: U+009B is CSI).
//            A C1 introducer opens the same sequence as its ESC form, so
//            "\x9b c" (8-bit DA) is removed whole, and "\xc2\x9b 1 m" is kept
//            as the 7-bit "\x1b[1m".
// The parser follows ECMA-48's structure (ESC, CSI parameter/intermediate/
// final bytes, control strings ended by ST; CAN/SUB abort a sequence; ESC
// inside a string ends it). Over-long CSIs (> kMaxCsiBytes) are removed.
//
// State is kept between feed() calls, so a sequence split across recorded
// events is recognised: feed() may return less than it was given and emit
// the rest later. finish() ends the stream (drops an unfinished sequence).
// Thread safety: none; one sanitizer per output stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fabriclab::runner {

class TerminalSanitizer {
 public:
  static constexpr std::size_t kMaxCsiBytes = 64;

  // Returns the safe part of `bytes` (and of anything held back before).
  std::string feed(std::string_view bytes);
  // Ends the stream: an unfinished sequence is removed, a held-back byte dropped.
  std::string finish();

  // How many sequences or control characters were removed so far.
  std::size_t removed() const { return removed_; }

 private:
  enum class State {
    kGround,
    kEscape,              // after ESC
    kEscapeIntermediate,  // ESC + intermediates (0x20-0x2F)
    kCsi,                 // after CSI: parameters, intermediates
    kCsiIgnore,           // a CSI being removed: skip to its final byte
    kString,              // OSC/DCS/SOS/PM/APC: skip to ST (or BEL for OSC)
    kStringEscape,        // ESC inside a string: '\' ends it (ST)
  };

  void step(unsigned char byte, std::string& out);
  void ground(unsigned char byte, std::string& out);
  void c1(unsigned char code, std::string& out);  // code in 0x80..0x9F
  void escape_final(unsigned char byte, std::string& out);
  void csi_final(unsigned char byte, std::string& out);
  // Emits the sequence with its final byte, or counts it removed; back to ground.
  void finish_sequence(bool keep, unsigned char final_byte, std::string& out);
  void drop() { ++removed_; }
  void abandon();

  State state_ = State::kGround;
  std::string sequence_;        // bytes of the sequence being parsed (ESC/CSI)
  bool string_is_osc_ = false;  // OSC also ends at BEL
  bool pending_c2_ = false;     // 0xC2 held back: it may start U+0080..U+009F
  int utf8_remaining_ = 0;      // continuation bytes expected in ground
  std::size_t removed_ = 0;
};

// One line of plain text from untrusted text (a marker label, a cast's
// title): escape sequences removed as above, then every remaining control
// character (\r \n \t \b included) removed too.
std::string plain_text(std::string_view text);

}  // namespace fabriclab::runner
