// libcurl, loaded the first time a push is set up (--prometheus-remote-write)
// rather than linked: libcurl brings GnuTLS, Kerberos, LDAP, SSH and more (24
// libraries, 4 MB of resident pages at start), which a run without a push must
// not map (the HTTP/3 module keeps GnuTLS out for the same reason;
// tests/e2e/test_http3.py checks the binary links none of it). The functions
// pacer calls, resolved once; thread-safe (a function-local static).
#pragma once

#include <curl/curl.h>

#include <string>

namespace pacer::prom {

struct CurlApi {
  CURLcode (*global_init)(long flags);
  void (*global_cleanup)();
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL* curl);
  CURLcode (*easy_setopt)(CURL* curl, CURLoption option, ...);
  CURLcode (*easy_perform)(CURL* curl);
  CURLcode (*easy_getinfo)(CURL* curl, CURLINFO info, ...);
  const char* (*easy_strerror)(CURLcode code);
  curl_slist* (*slist_append)(curl_slist* list, const char* line);
  void (*slist_free_all)(curl_slist* list);
};

// The loaded API, or null when libcurl.so.4 cannot be loaded (why: the reason,
// naming the library and what to install).
const CurlApi* curl_api(std::string* why);

}  // namespace pacer::prom
