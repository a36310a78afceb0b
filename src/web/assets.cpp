#include "web/assets.h"

namespace canopy::web {

const Asset* find_asset(std::string_view path) {
  for (const Asset& asset : embedded_assets()) {
    if (asset.path == path) {
      return &asset;
    }
  }
  return nullptr;
}

}  // namespace canopy::web
