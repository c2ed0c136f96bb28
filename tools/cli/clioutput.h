#pragma once

#include "chatsession.h"
#include "error.h"
#include "hardware.h"
#include "modelinfo.h"

#include <nlohmann/json.hpp>

#include <atomic>

namespace shoehorn::cli {

// Every JSON document the CLI prints goes through here: nlohmann escapes names and paths
// (a GGUF's general.name may hold quotes, backslashes and newlines), and text that is not
// valid UTF-8 becomes U+FFFD instead of an exception.
void printJson(const nlohmann::ordered_json &j);

// With --json (info, plan, fit), a failure is also a JSON document on stdout, as check-file's:
// {"ok": false, "code": "truncated", "detail": "..."}: a program reading stdout gets an answer,
// not an empty document. Set before the command's flags are read.
void setJsonErrors(bool on);
// A bad command line (a flag's value, flags that do not go together): "error: text" on stderr
// (and the JSON document with --json, code invalid-argument), exit status 2.
int usageError(const std::string &text);

// Prints "error (code): text" to stderr and returns the exit status 1. The text is never
// empty: an Error without detail gets its code's sentence.
int fail(const Error &e);
// fail() for an error about `file`: its path first where the message does not name it already
// ("error (not-gguf): a.gguf: the file does not start with the GGUF magic").
int failFor(const std::string &file, const Error &e);
// The error with `file` named first, where its message names neither the path nor the file's name
// (a helper's check names the name alone): failFor()'s rule, for an error that goes on as a value.
Error aboutFile(const std::string &file, Error e);
// Before a command hands a file to llama.cpp in this process: the isolated check (filecheck.h).
// Error{} when the file may be loaded.
Error checkFileBeforeLoad(const std::string &path, const std::atomic<bool> *cancel = nullptr);
// Every file a command loads: the model, then its projector (--mmproj) and draft model (-md),
// each named by its flag where it fails; empty paths are skipped.
Error checkFilesBeforeLoad(const std::string &model, const std::string &mmproj, const std::string &draft,
                           const std::atomic<bool> *cancel = nullptr);
// A draft model (-md) that fails the check: chat and serve run without speculation (as with a
// draft that is no GGUF) and the returned note says why ("-md F: ..."); `s` is then off. Empty
// when there is no draft or it passed; an error only when `cancel` stopped the check.
Result<std::string> dropFailedDraft(SpeculationSettings &s, const std::atomic<bool> *cancel = nullptr);
// The notes on stderr after a session starts: the draft model left out (dropFailedDraft), why
// speculation is off, and a chat template ChatML stands in for.
void printSessionNotes(const ChatSession &session, const std::string &draftNote);
// The same unless --no-check (`enabled` false): 0 when they may be loaded, else the exit code
// after printing why.
int checkBeforeLoad(bool enabled, const std::string &model, const std::string &mmproj = {},
                    const std::string &draft = {});
// --mmproj FILE for a session: loaded (on the GPU unless --no-mmproj-offload or nothing is
// offloaded) and handed to the session. 0, or the exit code after printing why. None: 0.
int attachProjector(const std::string &mmproj, bool offload, const LoadSettings &load, const ContextSettings &context,
                    ChatSession &session);
Error projectorForSession(const std::string &mmproj, bool offload, const LoadSettings &load,
                          const ContextSettings &context, ChatSession &session);

// The CPU threads this process may run on (its affinity: taskset, a container's cpuset), for
// threadsWarning(); std::thread::hardware_concurrency() where the mask cannot be read.
unsigned usableCpuThreads();
// Prints threadsWarning() for these settings on this machine, if there is one.
void warnAboutThreads(const ContextSettings &context);

// This program's own path (the helper processes run it).
std::string selfPath();
// Where the CLI keeps what it caches ($XDG_CACHE_HOME/Shoehorn or ~/.cache/Shoehorn); empty
// without either variable.
std::string cacheFolder();

// shoehorn-cli check-file PATH: what the helper process runs; prints {"ok": ...} on stdout.
int cmdCheckFile(const std::string &path);

// A context above the model's trained length: prints "warning: ..." (what llama.cpp does with
// it) to stderr and returns the sentence; empty and silent when the context is within it.
std::string warnAboutContext(const ModelInfo &model, uint32_t contextSize);

// "CPU (haswell kernels), Vulkan0 · AMD Radeon RX 6600": the devices a model can use here.
std::string backendsLine(const HardwareInfo &hw);
// Why a GPU backend gave no device, one sentence each ("Vulkan: ...").
std::vector<std::string> backendProblemLines(const HardwareInfo &hw);
// shoehorn-cli devices (--list-devices): this machine's backends and devices.
int cmdDevices();

} // namespace shoehorn::cli
