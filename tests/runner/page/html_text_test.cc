// Text into the page (runner/page/html_text.h), gnuplot's SVG into the page
// (charts_section.h's inline_svg), and the embedded player bundle
// (page_assets.h): what could break out of its place does not.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/build_paths.h"
#include "runner/page/charts_section.h"
#include "runner/page/html_text.h"
#include "runner/page/page_assets.h"

namespace fabriclab::runner::page {
namespace {

TEST(HtmlEscape, EscapesWhatCouldOpenATagOrEndAnAttribute) {
  EXPECT_EQ(html_escape(R"(<script>alert("x") & 'y'</script>)"),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
  EXPECT_EQ(html_escape("plain text, 10% loss"), "plain text, 10% loss");
  EXPECT_EQ(html_escape("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(ScriptJson, CannotEndTheScriptElementAndReadsBackTheSame) {
  const nlohmann::json value = {{"cast", "</script><script>alert(1)</script><!-- & \u2028"}};
  const std::string text = script_json(value);
  EXPECT_EQ(text.find('<'), std::string::npos) << text;
  EXPECT_EQ(text.find('>'), std::string::npos) << text;
  EXPECT_EQ(text.find('&'), std::string::npos) << text;
  EXPECT_EQ(text.find("\xe2\x80\xa8"), std::string::npos) << "U+2028 raw";
  EXPECT_NE(text.find("\\u003c/script\\u003e"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text), value);
}

TEST(ScriptJson, InvalidUtf8BecomesAReplacementCharacterNotAnException) {
  const nlohmann::json value = std::string("ok \xff\xfe end");
  std::string text;
  ASSERT_NO_THROW(text = script_json(value));
  EXPECT_EQ(nlohmann::json::parse(text).get<std::string>(), "ok \xef\xbf\xbd\xef\xbf\xbd end");
}

const std::string kGnuplotSvg = R"(<?xml version="1.0" encoding="utf-8"  standalone="no"?>
<svg width="600" height="480" viewBox="0 0 600 480" xmlns="http://www.w3.org/2000/svg"
 xmlns:xlink="http://www.w3.org/1999/xlink">
<title>Gnuplot</title>
<g id="gnuplot_canvas">
<defs><path id='gpPt0' d='M-1,0 h2 M0,-1 v2'/></defs>
<use xlink:href='#gpPt0' transform='translate(1,1)' fill='url(#gpPt0)'/>
<text>&lt;/script>&lt;script>alert(1)&lt;/script></text>
</g>
</svg>
)";

TEST(InlineSvg, CutsTheProlog_PrefixesIds_KeepsEscapedText) {
  std::string why;
  const auto svg = inline_svg(kGnuplotSvg, "step_times-", why);
  ASSERT_TRUE(svg) << why;
  EXPECT_EQ(svg->rfind("<svg", 0), 0u);
  EXPECT_EQ(svg->find("<?xml"), std::string::npos);
  EXPECT_NE(svg->find("id='step_times-gpPt0'"), std::string::npos) << *svg;
  EXPECT_NE(svg->find("id=\"step_times-gnuplot_canvas\""), std::string::npos) << *svg;
  EXPECT_NE(svg->find("xlink:href='#step_times-gpPt0'"), std::string::npos) << *svg;
  EXPECT_NE(svg->find("url(#step_times-gpPt0)"), std::string::npos) << *svg;
  EXPECT_NE(svg->find("&lt;/script>"), std::string::npos);
}

TEST(InlineSvg, TextBetweenTagsIsOnlyText) {
  std::string why;
  const std::string svg =
      "<svg><text>&lt;img src=x onerror=alert(1)> javascript:x href='y'</text></svg>";
  EXPECT_TRUE(inline_svg(svg, "c-", why)) << why;
}

TEST(InlineSvg, RefusesAnythingThatCouldRunOrLoad) {
  const std::string open = "<svg xmlns=\"http://www.w3.org/2000/svg\">";
  for (const std::string& inside :
       {std::string("<script>alert(1)</script>"), std::string("<SCRIPT src=x></SCRIPT>"),
        std::string("<g onload=\"alert(1)\"/>"), std::string("<rect ONCLICK='x()'/>"),
        std::string("<foreignObject><div/></foreignObject>"),
        std::string("<a href=\"javascript:alert(1)\">x</a>"),
        std::string("<use xlink:href='https://example.invalid/x.svg#a'/>"),
        std::string("<image href='data:image/png;base64,AAAA'/>"), std::string("<iframe/>"),
        std::string("<g title=\"a>b\" onload=\"alert(1)\"/>")}) {
    std::string why;
    EXPECT_FALSE(inline_svg(open + inside + "</svg>", "c-", why)) << inside;
    EXPECT_FALSE(why.empty());
  }
  std::string why;
  EXPECT_FALSE(inline_svg("<html><svg></svg></html>", "c-", why)) << "markup around the svg";
  EXPECT_FALSE(inline_svg("<svg></svg><script>x</script>", "c-", why)) << "markup after it";
  EXPECT_FALSE(inline_svg("no svg at all", "c-", why));
}

// The bundle goes inside <script>: it must not hold the text that ends one.
TEST(PageAssets, ThePinnedPlayerIsEmbeddedAndInlinable) {
  ASSERT_TRUE(player_assets_present())
      << "built without node_modules/asciinema-player: run scripts/setup.sh, then rebuild";
  for (const std::string_view text : {player_js(), page_js()}) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(lower.find("</script"), std::string::npos);
    EXPECT_EQ(lower.find("<!--"), std::string::npos);
  }
  EXPECT_NE(player_js().find("AsciinemaPlayer"), std::string_view::npos);
  EXPECT_NE(player_css().find(".ap-player"), std::string_view::npos);
  // The version compiled in is the one package-lock.json pins.
  std::ifstream lock(std::string(fabriclab::build_paths::source_dir()) + "/package-lock.json");
  const auto pinned =
      nlohmann::json::parse(lock)["packages"]["node_modules/asciinema-player"]["version"];
  EXPECT_EQ(std::string(player_version()), pinned.get<std::string>());
}

}  // namespace
}  // namespace fabriclab::runner::page
