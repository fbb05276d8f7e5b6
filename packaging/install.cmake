# What `cmake --install` lays out, as Debian expects with CMAKE_INSTALL_PREFIX=/usr
# (GNUInstallDirs): bin/pacer; the HTTP/3 module in lib/<multiarch>/pacer/, which
# the binary finds relative to its own directory (core/install_paths.h); the man
# pages and the bash and zsh completions generated from the --help texts
# (tools/docgen, src/docgen); the README, docs/ and examples/ under
# share/doc/pacer. The Debian package is made from this (packaging/deb.cmake).
include(GNUInstallDirs)

set(PACER_MODULE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pacer)
file(RELATIVE_PATH PACER_MODULE_DIR_FROM_BIN ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/pacer)
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/core/install_paths.cc APPEND PROPERTY
             COMPILE_DEFINITIONS PACER_MODULE_DIR_FROM_BIN="${PACER_MODULE_DIR_FROM_BIN}")
# liburing has no run-time version call: --version names the one built against.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/app/version_report.cc APPEND PROPERTY
             COMPILE_DEFINITIONS PACER_LIBURING_VERSION="${LIBURING_VERSION}")

# The man pages and completions, from the same text --help prints.
file(GLOB PACER_DOCGEN_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/docgen/*.cc)
add_library(pacer_docgen_lib STATIC ${PACER_DOCGEN_SOURCES})
target_compile_options(pacer_docgen_lib PRIVATE ${PACER_WARNINGS})
target_link_libraries(pacer_docgen_lib PUBLIC pacer_lib)
add_executable(pacer_docgen ${PROJECT_SOURCE_DIR}/tools/docgen/docgen.cc)
target_compile_options(pacer_docgen PRIVATE ${PACER_WARNINGS})
target_compile_definitions(pacer_docgen PRIVATE PACER_MODULE_INSTALL_DIR="${CMAKE_INSTALL_FULL_LIBDIR}/pacer")
target_link_libraries(pacer_docgen PRIVATE pacer_docgen_lib)
set(PACER_GENERATED_DOCS ${PROJECT_BINARY_DIR}/man)
set(PACER_MAN_PAGES pacer pacer-serve pacer-merge pacer-report pacer-cert)
set(PACER_DOCGEN_OUTPUTS ${PACER_GENERATED_DOCS}/pacer.bash ${PACER_GENERATED_DOCS}/_pacer)
set(PACER_MAN_FILES)
foreach(page IN LISTS PACER_MAN_PAGES)
  list(APPEND PACER_DOCGEN_OUTPUTS ${PACER_GENERATED_DOCS}/${page}.1 ${PACER_GENERATED_DOCS}/${page}.1.gz)
  list(APPEND PACER_MAN_FILES ${PACER_GENERATED_DOCS}/${page}.1.gz)
endforeach()
list(TRANSFORM PACER_MAN_PAGES APPEND .1 OUTPUT_VARIABLE PACER_MAN_SOURCES)
add_custom_command(
  OUTPUT ${PACER_DOCGEN_OUTPUTS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PACER_GENERATED_DOCS}
  COMMAND pacer_docgen ${PACER_GENERATED_DOCS}
  # Debian installs man pages compressed; -n leaves the time out (reproducible).
  COMMAND gzip -9nkf ${PACER_MAN_SOURCES}
  WORKING_DIRECTORY ${PACER_GENERATED_DOCS}
  DEPENDS pacer_docgen
  COMMENT "Generating the man pages and shell completions from --help"
  VERBATIM)
add_custom_target(pacer_docs ALL DEPENDS ${PACER_DOCGEN_OUTPUTS})

# The Debian changelog, compressed as Debian installs it.
set(PACER_CHANGELOG_GZ ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
add_custom_command(
  OUTPUT ${PACER_CHANGELOG_GZ}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9nc '${PROJECT_SOURCE_DIR}/packaging/changelog' > '${PACER_CHANGELOG_GZ}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/changelog
  VERBATIM)
add_custom_target(pacer_changelog ALL DEPENDS ${PACER_CHANGELOG_GZ})

install(TARGETS pacer RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS pacer_http3 pacer_tls LIBRARY DESTINATION ${PACER_MODULE_INSTALL_DIR})
install(FILES ${PACER_MAN_FILES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PACER_GENERATED_DOCS}/pacer.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME pacer)
install(FILES ${PACER_GENERATED_DOCS}/_pacer DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/packaging/copyright ${PACER_CHANGELOG_GZ}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
