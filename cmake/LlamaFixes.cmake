# Three fixes to code llama.cpp vendors or builds, for requests a hostile HTTP client can send
# (found by an audit of `shoehorn-cli serve`, 2026-12-04, and LeakSanitizer, 2026-12-05). Each is a copy of the pinned file in the build
# tree with anchored replacements (shoehorn_server_patch: an anchor that moved stops the
# configure), compiled in place of the original; the cached llama.cpp checkout stays pristine.
# Included after llama.cpp's add_subdirectory (LlamaCpp.cmake); uses shoehorn_server_patch.
#
#  - src/llama-grammar.cpp: one request with a "grammar" of 30000 nested groups, or a chain of
#    100000 rules (r0 ::= r1, r1 ::= r2, ...), overflowed the stack of the server loop's thread
#    that parses it (SIGSEGV: the window, or `serve`, gone). parse_alternates/parse_sequence and
#    llama_grammar_detect_left_recursion recurse once per level with no limit. Capped at 1000
#    levels: the grammar is refused (llama.cpp's own "failed to parse grammar", a 400) and the
#    server goes on. Upstream: ggml-org/llama.cpp issue 26600, pull request 26602 (open, same cap).
#  - vendor/cpp-httplib/httplib.cpp: the thread pool added a thread only when no thread was idle
#    at the moment a connection was queued; a burst of connections found the idle threads not yet
#    woken and queued behind them. 14 connections that sent one byte and stayed silent held the
#    8 threads of `serve` and the rest waited behind them: /health got no answer for the whole
#    read timeout (an hour), no key needed. Now it adds one when the queued connections outnumber
#    the idle threads.
#  - common/sampling.cpp: a request whose "grammar" does not parse left the sampler chain
#    common_sampler_init had made (88 bytes) behind when it threw "failed to parse grammar": a
#    client could grow the server's memory by repeating one bad request. The chain is freed first
#    (and, where a grammar refuses the prompt's prefill, the grammar sampler too).

# --- the grammar parser's depth ---------------------------------------------------------------
set(_grammar_in "${LLAMA_CPP_DIR}/src/llama-grammar.cpp")
set(_fixes_out "${CMAKE_BINARY_DIR}/llama-fixes-shoehorn")
file(READ "${_grammar_in}" _grammar)
shoehorn_server_patch(_grammar llama-grammar.cpp
"#define MAX_REPETITION_THRESHOLD 2000
"
"#define MAX_REPETITION_THRESHOLD 2000

// shoehorn: how deep the parser and the left-recursion check may go (one level per nested group
// or per rule reached through rules): each level is a stack frame of the thread parsing it.
#define SHOEHORN_GRAMMAR_MAX_DEPTH 1000
static thread_local int shoehorn_grammar_depth = 0;
struct shoehorn_grammar_level {
    shoehorn_grammar_level() { ++shoehorn_grammar_depth; }
    ~shoehorn_grammar_level() { --shoehorn_grammar_depth; }
    shoehorn_grammar_level(const shoehorn_grammar_level &) = delete;
    shoehorn_grammar_level & operator=(const shoehorn_grammar_level &) = delete;
};
")
shoehorn_server_patch(_grammar llama-grammar.cpp
"        bool                is_nested) {
    llama_grammar_rule rule;
    const char * pos = parse_sequence(src, rule_name, rule, is_nested);
"
"        bool                is_nested) {
    if (shoehorn_grammar_depth >= SHOEHORN_GRAMMAR_MAX_DEPTH) {
        throw std::runtime_error(\"grammar nested more than \" + std::to_string(SHOEHORN_GRAMMAR_MAX_DEPTH) + \" levels deep\");
    }
    shoehorn_grammar_level level;
    llama_grammar_rule rule;
    const char * pos = parse_sequence(src, rule_name, rule, is_nested);
")
shoehorn_server_patch(_grammar llama-grammar.cpp
"        std::vector<bool> * rules_may_be_empty) {
    if ((*rules_in_progress)[rule_index]) {
        return true;
    }
"
"        std::vector<bool> * rules_may_be_empty) {
    if ((*rules_in_progress)[rule_index]) {
        return true;
    }
    if (shoehorn_grammar_depth >= SHOEHORN_GRAMMAR_MAX_DEPTH) {
        // refused like left recursion: the grammar cannot be checked without a deeper stack
        LLAMA_LOG_ERROR(\"grammar rules refer to each other more than %d levels deep\\n\", SHOEHORN_GRAMMAR_MAX_DEPTH);
        return true;
    }
    shoehorn_grammar_level level;
")
file(CONFIGURE OUTPUT "${_fixes_out}/llama-grammar.cpp" CONTENT "${_grammar}" @ONLY)
get_target_property(_llama_sources llama SOURCES)
list(TRANSFORM _llama_sources REPLACE "^(.*/)?llama-grammar\\.cpp$" "${_fixes_out}/llama-grammar.cpp")
set_property(TARGET llama PROPERTY SOURCES ${_llama_sources})
target_include_directories(llama PRIVATE "${LLAMA_CPP_DIR}/src")

# --- httplib's thread pool ---------------------------------------------------------------------
set(_httplib_in "${LLAMA_CPP_DIR}/vendor/cpp-httplib/httplib.cpp")
file(READ "${_httplib_in}" _httplib)
shoehorn_server_patch(_httplib httplib.cpp
"    // Spawn a dynamic thread if no idle threads and under max
    if (idle_thread_count_ == 0 &&
"
"    // Spawn a dynamic thread if no idle threads and under max
    // shoehorn: while more connections wait than threads are idle (an idle thread that was
    // notified but has not woken yet is still counted idle: a burst queued behind it)
    if (jobs_.size() > idle_thread_count_ &&
")
file(CONFIGURE OUTPUT "${_fixes_out}/httplib.cpp" CONTENT "${_httplib}" @ONLY)
get_target_property(_httplib_sources cpp-httplib SOURCES)
list(TRANSFORM _httplib_sources REPLACE "^(.*/)?httplib\\.cpp$" "${_fixes_out}/httplib.cpp")
set_property(TARGET cpp-httplib PROPERTY SOURCES ${_httplib_sources})
target_include_directories(cpp-httplib PRIVATE "${LLAMA_CPP_DIR}/vendor/cpp-httplib")

# --- the sampler chain of a grammar that does not parse ----------------------------------------
set(_sampling_in "${LLAMA_CPP_DIR}/common/sampling.cpp")
file(READ "${_sampling_in}" _sampling)
shoehorn_server_patch(_sampling sampling.cpp
"    if (!grmr && !grammar_str.empty()) {
        throw std::runtime_error(\"failed to parse grammar\");"
"    if (!grmr && !grammar_str.empty()) {
        llama_sampler_free(chain); // shoehorn: not left behind by a request's bad grammar
        throw std::runtime_error(\"failed to parse grammar\");")
# The same when the grammar refuses the prompt's generation prefix (a tool-call or output-format
# grammar against the template's prefill): the grammar sampler and the chain are not in use yet.
shoehorn_server_patch(_sampling sampling.cpp
"                common_grammar_value(params.grammar).c_str(), params.generation_prompt.c_str());
            throw e;"
"                common_grammar_value(params.grammar).c_str(), params.generation_prompt.c_str());
            llama_sampler_free(grmr); // shoehorn: neither is owned by anything yet
            llama_sampler_free(chain);
            throw e;")
file(CONFIGURE OUTPUT "${_fixes_out}/sampling.cpp" CONTENT "${_sampling}" @ONLY)
get_target_property(_common_sources llama-common SOURCES)
list(TRANSFORM _common_sources REPLACE "^(.*/)?sampling\\.cpp$" "${_fixes_out}/sampling.cpp")
set_property(TARGET llama-common PROPERTY SOURCES ${_common_sources})
target_include_directories(llama-common PRIVATE "${LLAMA_CPP_DIR}/common")

set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_grammar_in}" "${_httplib_in}" "${_sampling_in}")
