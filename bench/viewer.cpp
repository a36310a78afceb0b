// The viewer's server side on one recording: how long `canopy view` takes to load it,
// how long each query of the page takes and how large its answer is, how long a
// request over HTTP waits while other connections sit idle, and the size of the HTML
// report. Prints markdown table rows (median of several runs, min, max).
//
//   canopy_bench_viewer RECORDING [RUNS]
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/json_dump.h"
#include "web/html_report.h"
#include "store/reader.h"
#include "web/server.h"
#include "web/view_data.h"
#include "web/view_loading.h"

using namespace canopy;

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Runs `work` `runs` times; prints "| what | median | min | max | size |".
void measure(const char* what, int runs, const std::function<size_t()>& work) {
  std::vector<double> times;
  size_t size = 0;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    size = work();
    times.push_back(ms_since(start));
  }
  std::sort(times.begin(), times.end());
  std::printf("| %s | %.1f | %.1f | %.1f | %s |\n", what, times[times.size() / 2], times.front(), times.back(),
              size ? (std::to_string(size / 1024) + " KiB").c_str() : "");
}

// The time of GET /api/recording over loopback HTTP, each time with `idle` other
// connections opened first that send nothing, or half a request and then nothing (as
// a browser's speculative connections, or anyone's, may). Prints a row like measure().
void measure_beside_idle_connections(const web::ViewLoading& view, int idle, int runs) {
  auto server = web::ViewServer::bind(view, {});
  if (!server) {
    std::fprintf(stderr, "%s\n", server.error().message.c_str());
    std::exit(1);
  }
  std::thread serving([&] { (void)(*server)->serve(); });
  std::string url = (*server)->url();  // http://127.0.0.1:PORT/
  int port = std::stoi(url.substr(url.rfind(':') + 1));
  std::vector<double> times;
  size_t size = 0;
  for (int run = 0; run < runs; ++run) {
    std::vector<int> sockets;
    for (int i = 0; i < idle; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in address{};
      address.sin_family = AF_INET;
      address.sin_port = htons(static_cast<uint16_t>(port));
      address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && i % 2 == 1) {
        std::string half = "GET /api/recording HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\n";
        (void)!::send(fd, half.data(), half.size(), 0);
      }
      sockets.push_back(fd);
    }
    auto start = std::chrono::steady_clock::now();
    httplib::Client client("127.0.0.1", port);
    auto res = client.Get("/api/recording");
    times.push_back(ms_since(start));
    size = res ? res->body.size() : 0;
    for (int fd : sockets) {
      ::close(fd);
    }
  }
  (*server)->stop();
  serving.join();
  std::sort(times.begin(), times.end());
  std::printf("| GET /api/recording over HTTP, %d idle connections open | %.1f | %.1f | %.1f | %zu KiB |\n", idle,
              times[times.size() / 2], times.front(), times.back(), size / 1024);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RECORDING [RUNS]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;

  // The up-front check `canopy report`, `export` and `diff` make of a recording (every
  // page and index), against an open without it (`canopy view`).
  for (auto [what, verify] : {std::pair{"open with PRAGMA integrity_check (report, export, diff)",
                                        store::Reader::Verify::kIntegrityCheck},
                              std::pair{"open without it (view)", store::Reader::Verify::kWhileReading}}) {
    measure(what, std::max(1, runs / 2), [&, verify = verify] {
      auto reader = store::Reader::open(path, verify);
      if (!reader) {
        std::fprintf(stderr, "%s\n", reader.error().message.c_str());
        std::exit(1);
      }
      return size_t{0};
    });
  }

  measure("read the preview (canopy view start-up)", runs, [&] {
    auto reader = store::Reader::open(path, store::Reader::Verify::kWhileReading);
    if (!reader) {
      std::fprintf(stderr, "%s\n", reader.error().message.c_str());
      std::exit(1);
    }
    auto preview = web::preview_json(*reader, path, web::kPreviewPoints);
    if (!preview) {
      std::fprintf(stderr, "%s\n", preview.error().message.c_str());
      std::exit(1);
    }
    return json_dump(*preview).size();
  });
  std::optional<web::ViewData> loaded_data;
  measure("load every sample (behind the preview)", std::max(1, runs / 2), [&] {
    auto loaded = web::load_view_data(path);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
      std::exit(1);
    }
    loaded_data.emplace(std::move(*loaded));
    return size_t{0};
  });
  auto view = web::ViewLoading::loaded(std::move(*loaded_data));
  const web::ViewData* data = view->data();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);

  const auto& ticks = data->timeline.ticks();
  int64_t first = ticks.front();
  int64_t last = ticks.back();
  measure("GET /api/recording (processes, meta)", runs, [&] { return json_dump(data->recording).size(); });
  for (const char* metric : {"rss", "cpu"}) {
    auto m = *analyze::metric_from_id(metric);
    std::string what = std::string("GET /api/series ") + metric + ", whole recording, 1600 points";
    measure(what.c_str(), runs, [&] { return json_dump(web::series_json(data->timeline.series(m, first, last, 1600))).size(); });
  }
  auto rss = analyze::Metric::kRss;
  int64_t middle = first + (last - first) / 2;
  measure("GET /api/series rss, 10 minutes (a zoom), 1600 points", runs, [&] {
    return json_dump(web::series_json(data->timeline.series(rss, middle, middle + 600'000, 1600))).size();
  });
  measure("GET /api/series rss, 1 minute (a deep zoom), 1600 points", runs, [&] {
    return json_dump(web::series_json(data->timeline.series(rss, middle, middle + 60'000, 1600))).size();
  });
  measure("GET /api/at (information panel)", runs,
          [&] { return json_dump(web::moment_json(*data->timeline.at(middle))).size(); });
  for (int idle : {0, 50}) {
    measure_beside_idle_connections(*view, idle, runs);
  }
  measure("canopy report --html (render)", std::max(1, runs / 2), [&] {
    auto html = web::render_html_report(*data);
    return html ? html->size() : 0;
  });
  std::printf("| viewer memory after load (max RSS) | %.0f MiB | | | |\n", usage.ru_maxrss / 1024.0);
  return 0;
}
