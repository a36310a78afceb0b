// Writes a synthetic log of about SIZE_MB in one of canopy's import formats, for
// bench/log_import.sh. Deterministic (fixed seed), with times rising from START_MS:
// a realistic mix of line lengths, words and, for `lines`, a stack trace now and then.
//
//   canopy_bench_loggen FORMAT SIZE_MB START_MS > FILE     (FORMAT: lines, jsonl, cutelooker, cmake-trace)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>

namespace {

constexpr const char* kWords[] = {"alpha",  "request", "response", "cache",  "worker",  "timeout", "retry",
                                  "commit", "flush",   "index",    "loader", "session", "shard",   "queue"};
constexpr const char* kLevels[] = {"INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR"};

std::string message(std::mt19937& random) {
  std::string text = kWords[random() % 14];
  text += ": ";
  int words = 4 + static_cast<int>(random() % 16);
  for (int i = 0; i < words; ++i) {
    text += kWords[random() % 14];
    text += ' ';
  }
  text += "id=" + std::to_string(random() % 100000);
  return text;
}

std::string iso_local(int64_t t_ms) {
  time_t seconds = static_cast<time_t>(t_ms / 1000);
  tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[64];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d %H:%M:%S", &utc);
  std::snprintf(buffer + std::strlen(buffer), 8, ",%03d", static_cast<int>(t_ms % 1000));
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: canopy_bench_loggen lines|jsonl|cutelooker|cmake-trace SIZE_MB START_MS\n");
    return 2;
  }
  std::string format = argv[1];
  int64_t target_bytes = std::atoll(argv[2]) << 20;
  int64_t t_ms = std::atoll(argv[3]);
  std::mt19937 random(42);
  int64_t written = 0;
  std::string out;
  auto emit = [&](const std::string& text) {
    out += text;
    if (out.size() > (1 << 20)) {
      written += static_cast<int64_t>(std::fwrite(out.data(), 1, out.size(), stdout));
      out.clear();
    }
  };
  if (format == "cutelooker") {
    emit("{\n");
  } else if (format == "cmake-trace") {
    emit("{\"version\":{\"major\":1,\"minor\":2}}\n");
  }
  bool first = true;
  while (written + static_cast<int64_t>(out.size()) < target_bytes) {
    t_ms += static_cast<int64_t>(random() % 3);
    std::string text = message(random);
    if (format == "lines") {
      emit(iso_local(t_ms) + " " + kLevels[random() % 6] + " " + text + "\n");
      if (random() % 200 == 0) {
        emit("Traceback (most recent call last):\n  File \"worker.py\", line 42, in run\nValueError: " + text + "\n");
      }
    } else if (format == "jsonl") {
      emit("{\"ts\":" + std::to_string(t_ms / 1000) + "." + std::to_string(1000 + t_ms % 1000).substr(1) +
           ",\"level\":\"info\",\"msg\":\"" + text + "\",\"pid\":" + std::to_string(random() % 4000) + "}\n");
    } else if (format == "cutelooker") {
      emit(std::string(first ? "" : ",\n") + "\"" + std::to_string(t_ms) + "\": [\"" + text + "\"]");
    } else if (format == "cmake-trace") {
      emit("{\"args\":[\"" + text + "\",\"VAR\"],\"cmd\":\"set\",\"file\":\"/src/cmake/module" +
           std::to_string(random() % 8) + ".cmake\",\"frame\":2,\"global_frame\":2,\"line\":" +
           std::to_string(random() % 300) + ",\"time\":" + std::to_string(t_ms / 1000) + "." +
           std::to_string(1000 + t_ms % 1000).substr(1) + "}\n");
    } else {
      std::fprintf(stderr, "canopy_bench_loggen: unknown format '%s'\n", format.c_str());
      return 2;
    }
    first = false;
  }
  if (format == "cutelooker") {
    emit("\n}\n");
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}
