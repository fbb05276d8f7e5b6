# The Debian package, with CPack's DEB generator (scripts/package.sh drives it):
# one package, pacer, holding the binary and the HTTP/3 and TLS modules (why one: see
# docs/install.md). Depends comes from dpkg-shlibdeps over the three ELF files, so it
# names exactly the libraries they link, at the versions the build saw.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pacer)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGE_CONTACT "pacer maintainers <maintainers@users.noreply.a-seed-6940f1f8.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HTTP load generator with wrk's command line and honest numbers")
# The extended description only: CPack puts the summary above it as the synopsis
# and indents each line by one space (lines within 80 columns then).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "pacer measures the latency, throughput and errors of an HTTP server
under load, over HTTP/1.1, HTTP/2 and HTTP/3, in the closed loop (as wrk)
or on a schedule (the open model, without coordinated omission, as wrk2).
Timed-out requests stay in the latency figures, errors are counted by
class, and JSON, CSV, HdrHistogram, time-series and HTML reports carry the
same numbers. wrk's Lua scripts run unchanged; Locust-style scenarios, CI
gates and runs spread over many machines are built in.")
set(CPACK_DEBIAN_PACKAGE_SECTION web)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
# --prometheus-remote-write loads libcurl when a run pushes (src/prom/curl_api.h): not
# linked, so dpkg-shlibdeps does not see it.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcurl4")
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
