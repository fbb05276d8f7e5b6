# Embeds the browser assets into pacer at build time: the chart library (uPlot, from
# the npm registry, pinned by web/package-lock.json and installed by scripts/setup.sh
# with `npm ci --prefix web`) and the project's own JavaScript and CSS (web/*.js,
# web/*.css). A generated C++ file holds each as a byte array (src/html/assets.h reads
# them), so the HTML report and the live view never fetch anything at run time.
# Another helper's page adds its files to PACER_WEB_ASSETS (name = file name).

set(PACER_WEB_DIR ${PROJECT_SOURCE_DIR}/web)
set(PACER_UPLOT_DIR ${PACER_WEB_DIR}/node_modules/uplot/dist)
if(NOT EXISTS ${PACER_UPLOT_DIR}/uPlot.iife.min.js OR NOT EXISTS ${PACER_UPLOT_DIR}/uPlot.min.css)
  message(FATAL_ERROR "web/node_modules/uplot is missing (the chart library the HTML report embeds): "
                      "run scripts/setup.sh, or `npm ci --prefix web`")
endif()

set(PACER_WEB_ASSETS
    ${PACER_UPLOT_DIR}/uPlot.iife.min.js
    ${PACER_UPLOT_DIR}/uPlot.min.css
    ${PACER_WEB_DIR}/charts.js
    ${PACER_WEB_DIR}/report.js
    ${PACER_WEB_DIR}/capacity.js
    ${PACER_WEB_DIR}/report.css
    # The live web view's page (--web, src/web/assets.cc serves these).
    ${PACER_WEB_DIR}/live.html
    ${PACER_WEB_DIR}/live.js
    ${PACER_WEB_DIR}/search.js
    ${PACER_WEB_DIR}/live.css)

set(PACER_WEB_ASSETS_CC ${PROJECT_BINARY_DIR}/generated/html_assets.cc)
add_custom_command(
  OUTPUT ${PACER_WEB_ASSETS_CC}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${PACER_WEB_ASSETS_CC} "-DINPUTS=${PACER_WEB_ASSETS}"
          -P ${PACER_WEB_DIR}/embed.cmake
  DEPENDS ${PACER_WEB_ASSETS} ${PACER_WEB_DIR}/embed.cmake
  COMMENT "Embedding web assets (uPlot, charts.js, report.js, capacity.js, report.css)"
  VERBATIM)
target_sources(pacer_lib PRIVATE ${PACER_WEB_ASSETS_CC})
