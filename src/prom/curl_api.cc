// See curl_api.h.
#include "prom/curl_api.h"

#include <dlfcn.h>

#include <optional>

namespace pacer::prom {

namespace {

struct Loaded {
  std::optional<CurlApi> api;
  std::string error;
};

template <typename Fn>
bool resolve(void* library, const char* name, Fn& out, std::string& error) {
  out = reinterpret_cast<Fn>(::dlsym(library, name));
  if (out == nullptr) error = std::string("libcurl.so.4 has no ") + name;
  return out != nullptr;
}

Loaded load() {
  Loaded out;
  void* library = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);  // kept loaded for the process
  if (library == nullptr) {
    const char* reason = ::dlerror();
    out.error = std::string("cannot load libcurl.so.4 (install libcurl4): ") + (reason != nullptr ? reason : "");
    return out;
  }
  CurlApi a{};
  if (resolve(library, "curl_global_init", a.global_init, out.error) &&
      resolve(library, "curl_global_cleanup", a.global_cleanup, out.error) &&
      resolve(library, "curl_easy_init", a.easy_init, out.error) &&
      resolve(library, "curl_easy_cleanup", a.easy_cleanup, out.error) &&
      resolve(library, "curl_easy_setopt", a.easy_setopt, out.error) &&
      resolve(library, "curl_easy_perform", a.easy_perform, out.error) &&
      resolve(library, "curl_easy_getinfo", a.easy_getinfo, out.error) &&
      resolve(library, "curl_easy_strerror", a.easy_strerror, out.error) &&
      resolve(library, "curl_slist_append", a.slist_append, out.error) &&
      resolve(library, "curl_slist_free_all", a.slist_free_all, out.error)) {
    out.api = a;
  }
  return out;
}

}  // namespace

const CurlApi* curl_api(std::string* why) {
  static const Loaded loaded = load();
  if (!loaded.api && why != nullptr) *why = loaded.error;
  return loaded.api ? &*loaded.api : nullptr;
}

}  // namespace pacer::prom
