// web/: the viewer. An HTTP server for one recording (the embedded page and a JSON
// API), and the same page as one self-contained HTML file.
//
// The front end (web/ at the top of the tree) is built at build time and embedded in
// the binary: nothing is read from disk or the network when it is served.
#pragma once

#include <span>
#include <string_view>

namespace canopy::web {

struct Asset {
  std::string_view path;  // as requested: "/", "/app.js", ...
  std::string_view content_type;
  std::string_view body;
};

// Generated at build time (cmake/embed_assets.cmake).
std::span<const Asset> embedded_assets();

// The asset served at `path`, or nullptr: an exact match, never a file lookup.
const Asset* find_asset(std::string_view path);

}  // namespace canopy::web
