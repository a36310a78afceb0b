#include "integration/served_view.h"

namespace canopy::testing {

Result<std::unique_ptr<ServedView>> ServedView::start(std::unique_ptr<web::ViewLoading> loading,
                                                      const web::ServerOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<web::ViewService> server, web::ViewServer::bind(*loading, options));
  return std::unique_ptr<ServedView>(new ServedView(std::move(loading), std::move(server)));
}

Result<std::unique_ptr<ServedView>> ServedView::start(const std::string& recording,
                                                      const web::ServerOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<web::ViewLoading> loading, web::ViewLoading::start(recording));
  return start(std::move(loading), options);
}

ServedView::ServedView(std::unique_ptr<web::ViewLoading> loading, std::unique_ptr<web::ViewService> server)
    : loading_(std::move(loading)), server_(std::move(server)) {
  const std::string url = server_->url();
  const size_t authority = url.find("://") + 3;
  origin_ = url.substr(0, url.find('/', authority));
  port_ = std::stoi(origin_.substr(origin_.rfind(':') + 1));
  serving_ = std::thread([this] { (void)server_->serve(); });
}

ServedView::~ServedView() {
  server_->stop();
  serving_.join();
}

}  // namespace canopy::testing
