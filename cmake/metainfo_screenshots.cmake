# Writes the AppStream metainfo with its <screenshots> (cmake -P; the build runs it, and so does
# tests/packaging/test_desktop_files.sh). AppStream wants each screenshot as a public https URL: with BASE_URL (the
# cache variable FTS_SCREENSHOT_BASE_URL, e.g. where docs/screenshots/ of this source is published) the images are
# BASE_URL/<name>.png; without it the metainfo has no <screenshots>, and the configure step says so.
#   cmake -DSOURCE=<metainfo.xml> -DOUTPUT=<file> [-DBASE_URL=https://...] -P metainfo_screenshots.cmake
file(READ "${SOURCE}" text)
if(BASE_URL)
  if(NOT BASE_URL MATCHES "^https://")
    message(FATAL_ERROR "FTS_SCREENSHOT_BASE_URL must be an https:// URL (AppStream fetches the images), found ${BASE_URL}")
  endif()
  string(REGEX REPLACE "/+$" "" base "${BASE_URL}")
  # docs/screenshots/<name>.png, each with its caption; the first is the one stores show first.
  set(shots "run|A run as it trains: loss, learning rate, and the memory of every device"
            "editor|A new run: the config as a form and as JSON, kept in sync, with each rank's memory estimate"
            "chat|Talking to the fine-tuned model, streamed as it generates")
  set(xml "  <screenshots>\n")
  set(type " type=\"default\"")
  foreach(shot IN LISTS shots)
    string(REPLACE "|" ";" parts "${shot}")
    list(GET parts 0 name)
    list(GET parts 1 caption)
    string(APPEND xml "    <screenshot${type}>\n      <caption>${caption}</caption>\n"
                      "      <image type=\"source\" width=\"1280\" height=\"820\">${base}/${name}.png</image>\n"
                      "    </screenshot>\n")
    set(type "")
  endforeach()
  string(APPEND xml "  </screenshots>\n")
  string(REPLACE "  <launchable" "${xml}  <launchable" text "${text}")
endif()
file(WRITE "${OUTPUT}" "${text}")
