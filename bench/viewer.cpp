// The viewer's server side on one recording: how long `canopy view` takes to load it,
// how long each query of the page takes and how large its answer is, and the size of
// the HTML report. Prints markdown table rows (median of several runs, min, max).
//
//   canopy_bench_viewer RECORDING [RUNS]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "web/html_report.h"
#include "web/view_data.h"

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RECORDING [RUNS]\n", argv[0]);
    return 2;
  }
  std::string path = argv[1];
  int runs = argc > 2 ? std::atoi(argv[2]) : 5;

  std::optional<web::ViewData> data;
  measure("load the recording (canopy view start-up)", std::max(1, runs / 2), [&] {
    auto loaded = web::load_view_data(path);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().message.c_str());
      std::exit(1);
    }
    data.emplace(std::move(*loaded));
    return size_t{0};
  });
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);

  const auto& ticks = data->timeline.ticks();
  int64_t first = ticks.front();
  int64_t last = ticks.back();
  measure("GET /api/recording (processes, meta)", runs, [&] { return data->recording.dump().size(); });
  for (const char* metric : {"rss", "cpu"}) {
    auto m = *analyze::metric_from_id(metric);
    std::string what = std::string("GET /api/series ") + metric + ", whole recording, 1600 points";
    measure(what.c_str(), runs, [&] { return web::series_json(data->timeline.series(m, first, last, 1600)).dump().size(); });
  }
  auto rss = analyze::Metric::kRss;
  int64_t middle = first + (last - first) / 2;
  measure("GET /api/series rss, 10 minutes (a zoom), 1600 points", runs, [&] {
    return web::series_json(data->timeline.series(rss, middle, middle + 600'000, 1600)).dump().size();
  });
  measure("GET /api/series rss, 1 minute (a deep zoom), 1600 points", runs, [&] {
    return web::series_json(data->timeline.series(rss, middle, middle + 60'000, 1600)).dump().size();
  });
  measure("GET /api/at (information panel)", runs,
          [&] { return web::moment_json(*data->timeline.at(middle)).dump().size(); });
  measure("canopy report --html (render)", std::max(1, runs / 2), [&] {
    auto html = web::render_html_report(*data);
    return html ? html->size() : 0;
  });
  std::printf("| viewer memory after load (max RSS) | %.0f MiB | | | |\n", usage.ru_maxrss / 1024.0);
  return 0;
}
