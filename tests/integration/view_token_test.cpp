// The viewer's access token (ServerOptions::require_token, `view` and `record --serve` off
// loopback): nothing is served without it; the URL the server prints carries it, the
// answer to that URL sets it as a cookie, and the page's own requests then carry it.
#include <gtest/gtest.h>
#include <httplib.h>

#include "integration/harness.h"
#include "integration/served_view.h"

namespace canopy::testing {
namespace {

TEST(ViewToken, OnlyRequestsWithTheTokenAreServed) {
  TempDir dir;
  const std::string recording = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  web::ServerOptions options;
  options.require_token = true;
  auto served = ServedView::start(recording, options);
  ASSERT_TRUE(served) << served.error().message;

  const std::string url = (*served)->url();
  const size_t query = url.find("/?token=");
  ASSERT_NE(query, std::string::npos) << url;
  const std::string token = url.substr(query + 8);
  EXPECT_EQ(token.size(), 32u) << "128 bits in hex";
  httplib::Client client = (*served)->client();

  for (const char* path : {"/", "/app.js", "/api/recording", "/api/live"}) {
    auto refused = client.Get(path);
    ASSERT_TRUE(refused) << path;
    EXPECT_EQ(refused->status, 401) << path;
  }
  auto wrong = client.Get("/api/recording?token=" + std::string(32, '0'));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto wrong_cookie = client.Get("/api/recording", {{"Cookie", "canopy_token=" + std::string(32, '0')}});
  ASSERT_TRUE(wrong_cookie);
  EXPECT_EQ(wrong_cookie->status, 401);

  auto page = client.Get("/?token=" + token);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  const std::string cookie = page->get_header_value("Set-Cookie");
  EXPECT_EQ(cookie, "canopy_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
  auto with_cookie = client.Get("/api/recording", {{"Cookie", "theme=dark; canopy_token=" + token}});
  ASSERT_TRUE(with_cookie);
  EXPECT_EQ(with_cookie->status, 200) << with_cookie->body;
  auto with_bearer = client.Get("/api/series?metric=rss", {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(with_bearer);
  EXPECT_EQ(with_bearer->status, 200) << with_bearer->body;
}

TEST(ViewToken, WithoutTheOptionNoneIsAskedFor) {
  TempDir dir;
  const std::string recording = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  auto served = ServedView::start(recording);
  ASSERT_TRUE(served) << served.error().message;
  EXPECT_EQ((*served)->url().find("token"), std::string::npos);
  auto answer = (*served)->client().Get("/api/recording");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_FALSE(answer->has_header("Set-Cookie"));
}

}  // namespace
}  // namespace canopy::testing
