// The live page's embedded files. Interim: a minimal page until the web/ assets
// pipeline (build-time embedding) is on main.
#include "web/assets.h"

namespace pacer::web {

namespace {

constexpr std::string_view kPage = R"(<!doctype html>
<html><head><meta charset="utf-8"><title>pacer live</title></head>
<body><h1>pacer</h1><pre id="last">waiting for the first interval</pre>
<button id="stop">Stop</button>
<script src="/live.js"></script></body></html>
)";

constexpr std::string_view kScript = R"(const token = new URLSearchParams(location.search).get('token');
const q = token ? '?token=' + encodeURIComponent(token) : '';
const last = document.getElementById('last');
const events = new EventSource('/events' + q);
events.onmessage = (e) => { last.textContent = e.data; };
events.addEventListener('end', (e) => { last.textContent = 'run ended\n' + e.data; events.close(); });
document.getElementById('stop').onclick = () => {
  fetch('/stop', {method: 'POST', headers: token ? {Authorization: 'Bearer ' + token} : {}});
};
)";

constexpr Asset kAssets[] = {
    {"text/html; charset=utf-8", kPage},
    {"text/javascript; charset=utf-8", kScript},
};

}  // namespace

const Asset* find_asset(std::string_view path) {
  if (path == "/") return &kAssets[0];
  if (path == "/live.js") return &kAssets[1];
  return nullptr;
}

}  // namespace pacer::web
