#include "report/growth_format.h"

#include <cstdio>

#include "common/text.h"

namespace canopy::report {
namespace {

using Verdict = analyze::GrowthFinding::Verdict;

std::string fit_text(double r_squared) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "R² %.2f", r_squared);
  return buf;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSteady:
      return "steady";
    case Verdict::kHeld:
      return "held";
    case Verdict::kReturned:
      return "returned";
  }
  return "";
}

}  // namespace

std::string growth_text(const analyze::GrowthFinding& f) {
  const int64_t rise = f.max_bytes - f.start_bytes;
  switch (f.verdict) {
    case Verdict::kSteady: {
      std::string line = "grew " + format_bytes(static_cast<int64_t>(f.slope_bytes_per_min)) + "/min for " +
                         format_duration_ms(f.growth_ms) + " (fit " + fit_text(f.r_squared) + "), to " +
                         format_bytes(f.max_bytes) + ", and never came back down";
      if (f.idle_after_max_ms > 0) {
        line += ", not even while idle for " + format_duration_ms(f.idle_after_max_ms);
      }
      return line + ": a leak?";
    }
    case Verdict::kHeld: {
      std::string line = "rose " + format_bytes(rise) + " to " + format_bytes(f.max_bytes) + " and stayed up, not along a line (fit " +
                         fit_text(f.r_squared) + ")";
      if (f.idle_after_max_ms > 0) {
        line += ", also while idle for " + format_duration_ms(f.idle_after_max_ms);
      }
      return line + ": state that is kept?";
    }
    case Verdict::kReturned:
      return "rose " + format_bytes(rise) + " under load and came back down to " + format_bytes(f.end_bytes) +
             (f.idle_at_end ? " once idle" : "");
  }
  return "";
}

nlohmann::json growth_json(const analyze::GrowthReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : report.findings) {
    findings.push_back({{"pid", f.pid},
                        {"name", f.name},
                        {"verdict", verdict_name(f.verdict)},
                        {"span_ms", f.span_ms},
                        {"ticks", f.ticks},
                        {"growth_ms", f.growth_ms},
                        {"start_bytes", f.start_bytes},
                        {"max_bytes", f.max_bytes},
                        {"end_bytes", f.end_bytes},
                        {"slope_bytes_per_min", f.slope_bytes_per_min},
                        {"r_squared", f.r_squared},
                        {"monotonic", f.monotonic},
                        {"idle_after_max_ms", f.idle_after_max_ms},
                        {"idle_at_end", f.idle_at_end}});
  }
  return {{"judged", report.judged},
          {"min_span_ms", analyze::kGrowthMinSpanMs},
          {"min_ticks", analyze::kGrowthMinTicks},
          {"findings", findings}};
}

}  // namespace canopy::report
