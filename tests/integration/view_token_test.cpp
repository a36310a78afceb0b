// The viewer's access token (ServerOptions::require_token, `record --serve` off
// loopback): nothing is served without it; the URL the server prints carries it, the
// answer to that URL sets it as a cookie, and the page's own requests then carry it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "integration/harness.h"
#include "web/server.h"
#include "web/view_loading.h"

namespace canopy::testing {
namespace {

TEST(ViewToken, OnlyRequestsWithTheTokenAreServed) {
  TempDir dir;
  const std::string recording = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  auto loading = web::ViewLoading::start(recording);
  ASSERT_TRUE(loading) << loading.error().message;
  web::ServerOptions options;
  options.require_token = true;
  auto server = web::ViewServer::bind(**loading, options);
  ASSERT_TRUE(server) << server.error().message;
  std::thread serving([&] { (void)(*server)->serve(); });

  const std::string url = (*server)->url();
  const size_t query = url.find("/?token=");
  ASSERT_NE(query, std::string::npos) << url;
  const std::string token = url.substr(query + 8);
  EXPECT_EQ(token.size(), 32u) << "128 bits in hex";
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  httplib::Client client("127.0.0.1", port);

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

  (*server)->stop();
  serving.join();
}

TEST(ViewToken, WithoutTheOptionNoneIsAskedFor) {
  TempDir dir;
  const std::string recording = dir.file("tree.canopy");
  ASSERT_EQ(run({kCanopy, "record", "-q", "-o", recording, kWorkload, "exit", "0"}).exit_status, 0);
  auto loading = web::ViewLoading::start(recording);
  ASSERT_TRUE(loading) << loading.error().message;
  auto server = web::ViewServer::bind(**loading, {});
  ASSERT_TRUE(server) << server.error().message;
  EXPECT_EQ((*server)->url().find("token"), std::string::npos);
  std::thread serving([&] { (void)(*server)->serve(); });
  httplib::Client client("127.0.0.1", std::stoi((*server)->url().substr((*server)->url().rfind(':') + 1)));
  auto answer = client.Get("/api/recording");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200);
  EXPECT_FALSE(answer->has_header("Set-Cookie"));
  (*server)->stop();
  serving.join();
}

}  // namespace
}  // namespace canopy::testing
