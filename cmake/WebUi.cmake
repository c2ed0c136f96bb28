# llama.cpp's web UI, built from the pinned tree's tools/ui and embedded the way llama.cpp embeds
# it (its own llama-ui-embed writes ui.cpp/ui.h; server-http.cpp serves the table when
# LLAMA_UI_HAS_ASSETS is defined). Run at build time with cmake -P:
#   -DUI_SOURCE_DIR=<llama.cpp>/tools/ui -DCACHE_DIR=<cache> -DOUT_DIR=<build dir for ui.cpp/ui.h>
#   -DEMBED=<llama-ui-embed> [-DNPM=npm] [-DNODE=node] [-DENABLED=ON]
#
# The built assets live in CACHE_DIR (~/.cache/shoehorn/llama-ui-<commit>): a rebuild of Shoehorn,
# or a new build directory, embeds them again without npm. `npm ci` installs exactly the
# package-lock's versions and checks each package's integrity hash. Where Node is too old or npm
# cannot reach the registry, one line says so, the table is empty, and `/` explains (the reason is
# written to ui-status.h).

cmake_minimum_required(VERSION 3.18)

set(dist "${CACHE_DIR}/dist")
set(reason "")

# Vite 7 (the lock's) needs Node ^20.19 or >= 22.12.
function(ui_node_ok out why)
    set(${out} FALSE PARENT_SCOPE)
    if(NOT NODE)
        set(${why} "Node.js is not installed" PARENT_SCOPE)
        return()
    endif()
    execute_process(COMMAND "${NODE}" --version OUTPUT_VARIABLE v RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT rc EQUAL 0 OR NOT v MATCHES "^v([0-9]+)\\.([0-9]+)")
        set(${why} "Node.js (${NODE}) does not run" PARENT_SCOPE)
        return()
    endif()
    set(major ${CMAKE_MATCH_1})
    set(minor ${CMAKE_MATCH_2})
    if(major LESS 20 OR (major EQUAL 20 AND minor LESS 19) OR (major GREATER 20 AND major LESS 22)
       OR (major EQUAL 22 AND minor LESS 12))
        set(${why} "Node.js ${v} is too old; its build needs 20.19 or newer" PARENT_SCOPE)
        return()
    endif()
    set(${out} TRUE PARENT_SCOPE)
endfunction()

# The last line of a tool's error output that says something.
function(ui_last_line text out)
    string(REGEX REPLACE "\n+$" "" text "${text}")
    if(text STREQUAL "") # a tool that failed without a word
        set(${out} "no message" PARENT_SCOPE)
        return()
    endif()
    string(REGEX MATCH "[^\n]+$" line "${text}")
    string(REGEX REPLACE "^npm (ERR!|error) *" "" line "${line}")
    set(${out} "${line}" PARENT_SCOPE)
endfunction()

function(ui_build)
    ui_node_ok(ok why)
    if(NOT ok)
        set(reason "${why}" PARENT_SCOPE)
        return()
    endif()
    if(NOT NPM)
        set(reason "npm is not installed" PARENT_SCOPE)
        return()
    endif()
    set(work "${CACHE_DIR}/src")
    file(REMOVE_RECURSE "${work}" "${CACHE_DIR}/dist.partial")
    file(COPY "${UI_SOURCE_DIR}/" DESTINATION "${work}" NO_SOURCE_PERMISSIONS PATTERN "node_modules" EXCLUDE
         PATTERN "dist" EXCLUDE)
    message(STATUS "Web UI: npm ci and npm run build in ${work} (once for this llama.cpp; about 2.5 minutes)")
    execute_process(COMMAND "${NPM}" ci --no-audit --no-fund --loglevel=error --fetch-retries=1 --fetch-timeout=60000 WORKING_DIRECTORY "${work}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        ui_last_line("${err}" line)
        set(reason "npm ci failed (is the npm registry reachable?): ${line}" PARENT_SCOPE)
        return()
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env "LLAMA_UI_OUT_DIR=${CACHE_DIR}/dist.partial" "${NPM}" run build
                    WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(NOT rc EQUAL 0 OR NOT EXISTS "${CACHE_DIR}/dist.partial/index.html")
        ui_last_line("${err}" line)
        set(reason "npm run build failed: ${line}" PARENT_SCOPE)
        return()
    endif()
    # Compressed copies, as llama.cpp's LLAMA_UI_GZIP does: the server sends them with
    # Content-Encoding: gzip, and the binary carries a fifth of the bytes.
    file(GLOB_RECURSE files RELATIVE "${CACHE_DIR}/dist.partial" "${CACHE_DIR}/dist.partial/*")
    foreach(f ${files})
        get_filename_component(d "${CACHE_DIR}/dist.partial/_gzip/${f}" DIRECTORY)
        file(MAKE_DIRECTORY "${d}")
        execute_process(COMMAND gzip -9 -n -c "${CACHE_DIR}/dist.partial/${f}" OUTPUT_FILE "${CACHE_DIR}/dist.partial/_gzip/${f}"
                        RESULT_VARIABLE rc)
        if(NOT rc EQUAL 0)
            set(reason "gzip failed on ${f}" PARENT_SCOPE)
            return()
        endif()
    endforeach()
    file(RENAME "${CACHE_DIR}/dist.partial" "${dist}")
    file(REMOVE_RECURSE "${work}") # node_modules: about 600 MB, not needed again
endfunction()

file(MAKE_DIRECTORY "${CACHE_DIR}")
file(LOCK "${CACHE_DIR}.lock" TIMEOUT 900) # two build directories share the cache
if(NOT ENABLED)
    set(reason "it was turned off when this Shoehorn was built (SHOEHORN_WEB_UI=OFF)")
elseif(NOT EXISTS "${dist}/index.html")
    # A failed attempt is not repeated on every build of this directory (an unreachable registry
    # costs minutes); configuring again (cmake -S . -B build) removes the note and tries again.
    if(EXISTS "${OUT_DIR}/ui.failed")
        file(READ "${OUT_DIR}/ui.failed" reason)
    else()
        ui_build()
        if(NOT reason STREQUAL "")
            file(WRITE "${OUT_DIR}/ui.failed" "${reason}")
        endif()
    endif()
endif()

file(LOCK "${CACHE_DIR}.lock" RELEASE)

# Embedding reads every asset: skip it when the table already holds what this run would write.
set(stamp "${ENABLED} ${reason} ${dist}")
if(EXISTS "${OUT_DIR}/ui.cpp" AND EXISTS "${OUT_DIR}/ui-status.h" AND EXISTS "${OUT_DIR}/ui.stamp")
    file(READ "${OUT_DIR}/ui.stamp" was)
    if(was STREQUAL stamp AND (NOT reason STREQUAL "" OR NOT "${dist}/index.html" IS_NEWER_THAN "${OUT_DIR}/ui.cpp"))
        if(NOT reason STREQUAL "")
            message(STATUS "Web UI: not built in: ${reason}; the build goes on, and / explains")
        endif()
        return()
    endif()
endif()

set(args "${OUT_DIR}/ui.cpp" "${OUT_DIR}/ui.h")
if(reason STREQUAL "")
    list(APPEND args "${dist}")
else()
    # The one line a build without it says.
    message(STATUS "Web UI: not built in: ${reason}; the build goes on, and / explains")
endif()
execute_process(COMMAND "${EMBED}" ${args} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "Web UI: llama-ui-embed failed (${rc})")
endif()
string(REPLACE "\\" "\\\\" reason "${reason}")
string(REPLACE "\"" "\\\"" reason "${reason}")
file(WRITE "${OUT_DIR}/ui-status.h.new"
     "#pragma once\n// Written by cmake/WebUi.cmake: why the web UI is not built in (empty: it is).\n"
     "#define SHOEHORN_UI_MISSING_REASON \"${reason}\"\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${OUT_DIR}/ui-status.h.new" "${OUT_DIR}/ui-status.h")
file(REMOVE "${OUT_DIR}/ui-status.h.new")
file(WRITE "${OUT_DIR}/ui.stamp" "${stamp}")
