# A fast cold build, for scripts/demo.sh (the demo preset): a new user's machine has
# no compiler cache, so every source is compiled once, at -O2. Two CMake features cut
# that work without changing what is compiled:
#
# - PACER_UNITY_BUILD: pacer_lib's and the HTTP/3 and TLS cores' sources are compiled in
#   batches (PACER_UNITY_BATCH_SIZE at most), one translation unit each, so the
#   inline functions and templates they share (fmt's, json's, the standard
#   library's) are parsed, instantiated and optimised once per batch instead of once
#   per source.
# - PACER_PCH: the headers most of pacer_lib's batches include (the standard
#   library's, fmt, nlohmann/json, nghttp2, core/) are parsed once into a
#   precompiled header.
#
# Both are ON in the sanitizer presets too (asan, tsan), where the test sources are
# batched as well (tests/CMakeLists.txt): CI builds them from a clean clone inside its
# time budget, and developers rarely rebuild them. They are OFF in debug and release,
# which developers rebuild after each edit: ccache caches a batch only as a whole (one
# edit recompiles the batch), and one source at a time is also what finds a source
# that does not include what it uses. docs/install.md gives the measured effect.
option(PACER_PCH "Precompile the common headers (the demo preset)" OFF)
option(PACER_UNITY_BUILD "Compile pacer_lib's sources in batches (the demo preset)" OFF)
set(PACER_UNITY_BATCH_SIZE 40 CACHE STRING "Most sources in one batch with PACER_UNITY_BUILD")

if(PACER_PCH)
  set(PACER_PCH_HEADERS
      <algorithm> <array> <atomic> <cerrno> <cstdint> <cstring> <functional> <map> <memory>
      <optional> <span> <string> <string_view> <unordered_map> <utility> <variant> <vector>
      <fmt/format.h> <nlohmann/json.hpp> <nghttp2/nghttp2.h>
      ${PROJECT_SOURCE_DIR}/src/core/expected.h ${PROJECT_SOURCE_DIR}/src/core/clock.h
      ${PROJECT_SOURCE_DIR}/src/core/config.h)
  target_precompile_headers(pacer_lib PRIVATE ${PACER_PCH_HEADERS})
endif()

if(PACER_UNITY_BUILD)
  # Which sources share a batch: PACER_UNITY_BATCH_SIZE consecutive ones (in path
  # order), so about four batches for pacer_lib and both cores busy to the end; 40
  # took 149 CPU-seconds where batches of one directory (at most 16) took 177 (GCC 12,
  # -O2, docs/install.md). File-local names (anonymous namespace, static) can only
  # clash within one namespace, which is one top-level directory of src/ (engine/** is
  # pacer::engine), and do for the sources of PACER_UNITY_APART: each defines a name
  # that another source of its directory also defines. Those go to batches of their
  # own: the first listed of each directory to the first such batch, the second to
  # the second, ... Cheaper than renaming in files other engineers edit. A new clash
  # shows as a compile error in scripts/demo.sh's build (cmake/check_unity.sh finds
  # them all): add the source here.
  set(PACER_UNITY_APART
      app/report_command.cc              # fail (app.cc)
      cli/cert_options.cc cli/merge_options.cc cli/report_options.cc cli/serve_options.cc
                                         # their option enums' kHelp, kOutput, ... (cli.cc)
      cli/option_scan.cc                 # find_short, find_long (config_layers.cc)
      cli/web_options.cc                 # all_digits (shard_options.cc)
      cookie/cookie_jar.cc               # trim (cookie_file.cc)
      scenario/user_cookies.cc           # users_of (user_api.cc)
      io/uring_engine.cc                 # kConnecting, kGenerationShift (epoll_engine.cc)
      proto/redirect.cc                  # trim (decode.cc)
      report/capacity.cc                 # kReportColumns (text.cc)
      report/json_reader.cc              # json is nlohmann::json here, ordered_json elsewhere
      report/locust_csv.cc               # field, kPercentiles, render_failures (csv.cc, json.cc)
      ui/plain_progress.cc)              # time_text (dashboard_render.cc)
  list(TRANSFORM PACER_UNITY_APART PREPEND ${PROJECT_SOURCE_DIR}/src/)

  # Sets UNITY_GROUP on each source under src/ (others, the generated assets, are
  # compiled on their own).
  function(pacer_unity_groups)
    foreach(source IN LISTS ARGN)
      if(NOT source MATCHES "^${PROJECT_SOURCE_DIR}/src/([^/]+)/.*\\.cc$")
        continue()
      endif()
      string(MAKE_C_IDENTIFIER "${CMAKE_MATCH_1}" directory)
      if(source IN_LIST PACER_UNITY_APART)
        set(counter apart_${directory})
      else()
        set(counter all)
      endif()
      if(NOT DEFINED count_${counter})
        set(count_${counter} 0)
      endif()
      if(source IN_LIST PACER_UNITY_APART)
        set(group apart_${count_${counter}})
      else()
        math(EXPR batch "${count_${counter}} / ${PACER_UNITY_BATCH_SIZE}")
        set(group batch_${batch})
      endif()
      math(EXPR count_${counter} "${count_${counter}} + 1")
      set_source_files_properties(${source} PROPERTIES UNITY_GROUP ${group})
    endforeach()
  endfunction()

  # A bigger translation unit inlines more, and GCC 12 then warns of a memcpy past a
  # std::string's end in report/text.cc that cannot happen (one of its known false
  # positives on std::string at -O2), and, under the sanitizers' -O1, of
  # std::function members "maybe uninitialized" inside libstdc++'s own std::regex
  # (another known false positive); the other presets keep these warnings on, and
  # clang has neither.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(pacer_lib PRIVATE -Wno-stringop-overflow -Wno-maybe-uninitialized)
  endif()
  foreach(target pacer_lib pacer_http3_core pacer_tls_core)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
    get_target_property(sources ${target} SOURCES)
    pacer_unity_groups(${sources})
  endforeach()
endif()
