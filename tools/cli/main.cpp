// shoehorn-cli: the engine without Qt, for scripts and GPU machines.
#include "chatsession.h"
#include "cliargs.h"
#include "clioutput.h"
#include "cmdbench.h"
#include "cmdplan.h"
#include "cmdrpc.h"
#include "cmdserve.h"
#include "flaguse.h"
#include "hardware.h"
#include "memreport.h"
#include "model.h"
#include "modelinfo.h"
#include "projector.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

using namespace shoehorn;
using shoehorn::cli::fail;
using shoehorn::cli::failFor;

namespace {

// The commands, one entry each: its line and the lines indented under it.
const char *kCommands =
    "  info MODEL.gguf [--json] [--tensors]   inspect without loading weights\n"
    "  chat MODEL.gguf -p TEXT [--progress] [--memory-report] [flags]\n"
    "                                         stream an answer, then stats (and RAM: plan vs actual)\n"
    "  plan MODEL.gguf [flags] [--profile ID | --vram-budget MiB] [--exact] [--json]\n"
    "                                         memory per device for these settings\n"
    "  fit MODEL.gguf [--profile ID | --vram-budget MiB] [--margin MiB] [--lock-ngl] [--lock-ncmoe]\n"
    "                 [--lock-ctx] [--lock-kv] [flags] [--json]\n"
    "                                         choose the fastest settings that fit\n"
    "  bench MODEL.gguf -p 512 -n 128 -r 5 [flags] [-o md|json|csv]\n"
    "                                         pp/tg/chat-path tokens per second\n"
    "  parity MODEL.gguf -p 512 -n 128 -r 5 [--rounds 3] [--llama-bench PATH] [flags]\n"
    "                                         the same against llama.cpp's llama-bench\n"
    "  tune MODEL.gguf [-p 128 -n 32] [--vram-budget MiB] [flags]\n"
    "                                         find the fastest settings that fit, and the story\n"
    "  serve [MODEL.gguf | -m MODEL.gguf | --models-preset FILE.ini] [llama-server's flags] [--no-check]\n"
    "                                         llama.cpp's server (OpenAI API, web UI) until SIGTERM/SIGINT;\n"
    "                                         its flags are llama-server's own (serve --help)\n"
    "  rpc-worker [--host 127.0.0.1] [--port 50052] [--threads N] [--device NAME,...] [--cache]\n"
    "                                         lend this machine's devices to another (--rpc HOST:PORT there)\n"
    "  devices                                the CPU kernels picked for this CPU, the GPUs, and why a GPU\n"
    "                                         backend found none\n";

void usage()
{
    std::printf("usage: shoehorn-cli COMMAND MODEL.gguf [flags]\ncommands:\n%sflags:\n%s", kCommands,
                cli::commonFlagsHelp());
}

// "shoehorn-cli fit --help": that command's line and the flags it reads (the whole list before).
void usageOf(const std::string &command)
{
    const std::string all = kCommands;
    const size_t start = all.find("  " + command + " ");
    if (start == std::string::npos) {
        usage();
        return;
    }
    size_t end = all.find('\n', start);
    while (end != std::string::npos && all.compare(end + 1, 4, "    ") == 0) // the lines under it
        end = all.find('\n', end + 1);
    const std::string flags = cli::flagsHelpFor(command);
    std::printf("usage: shoehorn-cli %s\n%s", all.substr(start + 2, end - start - 2).c_str(),
                flags.empty() ? "" : ("flags:\n" + flags).c_str());
}

int cmdInfo(const cli::Args &a)
{
    auto info = inspectModel(a.model);
    if (!info)
        return failFor(a.model, info.error());
    if (a.json) {
        std::printf("%s\n", modelInfoToJson(*info, a.tensors).c_str());
        return 0;
    }
    const ModelInfo &m = *info;
    std::printf("file:          %s (%s)\n", m.path.c_str(), formatBytes(m.fileSize).c_str());
    std::printf("name:          %s\n", m.name.c_str());
    std::printf("architecture:  %s%s\n", m.architecture.c_str(), m.isHybrid() ? " (hybrid)" : "");
    std::printf("quantization:  %s\n", m.fileTypeName.c_str());
    std::printf("parameters:    %s\n", formatParameterCount(m.parameterCount).c_str()); // as the Models list
    std::printf("layers:        %u, embedding %u, heads %u/%u (kv), head size %u/%u\n", m.layerCount,
                m.embeddingSize, m.headCount, m.headCountKv, m.headSizeK, m.headSizeV);
    std::printf("context:       %u trained\n", m.contextLength);
    if (m.isMoe())
        std::printf("experts:       %u, %u used; expert weights %s of %s\n", m.expertCount, m.expertUsedCount,
                    formatBytes(m.expertBytes()).c_str(), formatBytes(m.tensorBytes).c_str());
    if (m.slidingWindow)
        std::printf("sliding window: %u tokens, every %u layers full\n", m.slidingWindow, m.slidingWindowPattern);
    std::printf("chat template: %s\n", m.hasChatTemplate ? "yes" : "no (ChatML fallback)");
    if (a.tensors) {
        for (const auto &t : m.tensors)
            std::printf("  %-40s %-6s %10s\n", t.name.c_str(), t.type.c_str(), formatBytes(t.bytes).c_str());
    }
    return 0;
}

// --image files, read and checked before the model loads: a bad image costs no load.
Result<std::vector<ImageData>> readImages(const cli::Args &a)
{
    std::vector<ImageData> out;
    if (!a.images.empty() && a.mmproj.empty())
        return Error{ErrorCode::NoProjector, "--image needs --mmproj F, the model's vision projector"};
    for (const std::string &path : a.images) {
        std::error_code ec;
        if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
            return Error{ErrorCode::FileUnreadable, "--image " + path + ": not a regular file"};
        std::ifstream in(path, std::ios::binary);
        if (!in)
            return Error{ErrorCode::FileNotFound, "--image " + path + ": cannot open it (" + std::strerror(errno) + ")"};
        std::ostringstream bytes;
        bytes << in.rdbuf();
        ImageData img{bytes.str()};
        if (auto probe = probeImage(img.bytes); !probe)
            return Error{ErrorCode::ImageInvalid, "--image " + path + ": " + probe.error().detail};
        out.push_back(std::move(img));
    }
    return out;
}

// The projector given with --mmproj can be read and belongs to the model (checked before loading).
Error checkProjectorArg(const cli::Args &a)
{
    if (a.mmproj.empty())
        return {};
    auto info = inspectModel(a.model);
    auto proj = inspectProjector(a.mmproj);
    if (!proj)
        return Error{proj.error().code, "--mmproj " + a.mmproj + ": " + errorMessage(proj.error())};
    return info ? checkProjectorMatches(*proj, *info) : Error{};
}

// The answer as it streams: reasoning after "[thinking]", the answer after "[answer]".
StreamCallbacks printAnswer(bool &inReasoning)
{
    StreamCallbacks cb;
    cb.onDelta = [&inReasoning](std::string_view content, std::string_view reasoning) {
        if (!reasoning.empty()) {
            if (!inReasoning)
                std::fputs("[thinking] ", stdout);
            inReasoning = true;
            std::fwrite(reasoning.data(), 1, reasoning.size(), stdout);
        }
        if (!content.empty()) {
            if (inReasoning)
                std::fputs("\n[answer] ", stdout);
            inReasoning = false;
            std::fwrite(content.data(), 1, content.size(), stdout);
        }
        std::fflush(stdout);
    };
    return cb;
}

int cmdChat(const cli::Args &a)
{
    if (a.prompt.empty()) {
        std::fprintf(stderr, "error: chat needs -p TEXT\n");
        return 2;
    }
    auto images = readImages(a);
    if (!images)
        return fail(images.error());
    if (Error e = checkProjectorArg(a))
        return fail(e);
    if (const int rc = cli::checkBeforeLoad(a.checkFile, a.model, a.mmproj))
        return rc;
    ContextSettings context = a.context;
    auto draftNote = a.checkFile ? cli::dropFailedDraft(context.speculation) : std::string();
    if (!draftNote)
        return fail(draftNote.error());
    cli::MemoryReport memory(a, context);
    std::fprintf(stderr, "backends: %s\n", cli::backendsLine(probeHardware()).c_str());
    const auto start = std::chrono::steady_clock::now();
    int shown = -1;
    auto model = Model::load(a.model, a.load, [&](float p) {
        const int percent = static_cast<int>(p * 100.0f);
        if (!a.progress || percent == shown)
            return;
        shown = percent;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "loading: %3d %% after %.1f s\n", percent, s);
    });
    if (!model)
        return fail(model.error());
    cli::warnAboutContext((*model)->info(), a.context.contextSize);
    auto session = ChatSession::create(*model, context);
    if (!session)
        return fail(session.error());
    cli::printSessionNotes(**session, *draftNote);
    if (a.checkFile) // the template renders in the helper, under the check's limits
        (*session)->isolateTemplate(cli::selfPath());
    if (const int rc = cli::attachProjector(a.mmproj, a.mmprojOffload, a.load, context, **session))
        return rc;
    memory.afterLoad(**session);
    std::vector<ChatMessage> history;
    if (!a.system.empty())
        history.push_back({"system", a.system, {}});
    history.push_back({"user", a.prompt, {}, std::move(*images)});

    bool inReasoning = false;
    auto r = (*session)->generate(history, a.generation, printAnswer(inReasoning));
    if (!r)
        return fail(r.error());
    const GenerationStats &s = r->stats;
    std::fprintf(stderr,
                 "\n\nprompt: %d tokens (%d reused, %d evaluated) %.1f tok/s | generated: %d tokens %.1f tok/s | "
                 "ttft %.0f ms | stop: %s | context %d/%d%s\n",
                 s.promptTokens, s.reusedTokens, s.promptEvaluated, s.promptTokensPerSecond, s.generatedTokens,
                 s.generationTokensPerSecond, s.timeToFirstTokenMs, stopReasonName(s.stopReason), s.contextUsed,
                 s.contextSize, s.trimmedMessages ? " (trimmed)" : "");
    if (context.speculation.on())
        std::fprintf(stderr, "speculative (%s): %d drafted, %d accepted (%.0f %%)\n", context.speculation.running().c_str(),
                     s.draftTokens, s.draftAccepted, s.draftTokens > 0 ? 100.0 * s.draftAccepted / s.draftTokens : 0.0);
    memory.afterAnswer();
    return 0;
}

// Flags the command does not read (bench --image, plan --temp) change nothing: said, not dropped.
void noteUnusedFlags(const std::string &cmd, const cli::Args &args)
{
    if (const std::string note = cli::unusedFlagsNote(cmd, args); !note.empty())
        std::fprintf(stderr, "%s\n", note.c_str());
}

bool knownCommand(const std::string &cmd)
{
    for (const char *c : {"info", "check-file", "render-template", "chat", "plan", "fit", "bench", "parity", "tune"})
        if (cmd == c)
            return true;
    return false;
}

// The commands that read a command line of their own (serve, rpc-worker, devices, rpc-probe);
// std::nullopt: cmd is none of them.
std::optional<int> runOwnLine(const std::string &cmd, int argc, char **argv)
{
    if (cmd == "serve") // llama-server's own command line, read by llama.cpp's parser
        return cli::cmdServe(argc - 2, argv + 2);
    if (cmd == "rpc-worker") // llama.cpp's RPC server on this machine's devices
        return cli::cmdRpcWorker(argc - 2, argv + 2);
    if (cmd == "devices" || cmd == "--list-devices") { // this machine's backends and devices
        if (argc > 2 && (!std::strcmp(argv[2], "--help") || !std::strcmp(argv[2], "-h"))) {
            usageOf("devices");
            return 0;
        }
        if (argc > 2) { // "devices --json" printed text as if understood
            std::fprintf(stderr, "error: %s takes no arguments ('%s' given): it lists this machine's backends and "
                                 "devices as text\n", cmd.c_str(), argv[2]);
            return 2;
        }
        return cli::cmdDevices();
    }
    if (cmd == "rpc-probe" && argc == 3) // the helper process of an RPC worker's probe (remote.h)
        return cli::cmdRpcProbe(argv[2]);
    return std::nullopt;
}

// A command on a model, its flags read and checked.
int runOnModel(const std::string &cmd, cli::Args &args)
{
    if (cmd != "check-file" && cmd != "render-template") // helpers: their parents build the line
        noteUnusedFlags(cmd, args);
    if (cmd == "info")
        return cmdInfo(args);
    if (cmd == "check-file") // the isolated file check's helper process (filecheck.h)
        return cli::cmdCheckFile(args.model);
    if (cmd == "render-template") // a chat session's template helper (ChatSession::isolateTemplate)
        return serveChatTemplates(args.model);
    cli::attachRpc(args.rpc); // --rpc: the workers' devices join this machine's
    if (cmd != "plan" && cmd != "fit")
        cli::warnAboutThreads(args.context);
    // Without -c a conversation gets 4096 tokens, or the model's trained context where that is
    // less (llama.cpp's server caps a slot there: a larger KV cache would be allocated, unused).
    if (auto info = inspectModel(args.model)) {
        if (!args.contextGiven && info->contextLength > 0)
            args.context.contextSize = std::min(args.context.contextSize, info->contextLength);
        args.header = std::move(*info);
    }
    if (cmd == "chat")
        return cmdChat(args);
    if (cmd == "plan")
        return cli::cmdPlan(args);
    if (cmd == "fit")
        return cli::cmdFit(args);
    if (cmd == "bench")
        return cli::cmdBench(args);
    if (cmd == "parity")
        return cli::cmdParity(args);
    return cli::cmdTune(args); // knownCommand: the last one
}

int run(int argc, char **argv)
{
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    // A helper's parent reads llama.cpp's own words when it aborts, within a deadline: no gdb
    // backtrace (ggml attaches gdb where it is installed, seconds past the check's 3 s).
    if (cmd == "check-file" || cmd == "render-template" || cmd == "rpc-probe")
        setenv("GGML_NO_BACKTRACE", "1", 1);
    if (const auto rc = runOwnLine(cmd, argc, argv))
        return *rc;
    if (!knownCommand(cmd)) {
        std::fprintf(stderr, "error: unknown command %s\n", cmd.c_str());
        usage();
        return 2;
    }
    // `shoehorn-cli plan --help` is a question, not a bad flag ("unknown option --help" before);
    // -h only right after the command (elsewhere it could be a value, as in -p -h).
    for (int i = 2; i < argc; ++i)
        if (!std::strcmp(argv[i], "--help") || (i == 2 && !std::strcmp(argv[i], "-h"))) {
            usageOf(cmd);
            return 0;
        }
    // --json answers a bad flag in JSON too: set before the flags are read (one may be the bad one).
    const bool json = std::any_of(argv + 2, argv + argc, [](const char *a) { return !std::strcmp(a, "--json"); });
    cli::setJsonErrors(json && (cmd == "info" || cmd == "plan" || cmd == "fit"));
    auto parsed = cli::parseArgs(argc, argv, 2);
    if (!parsed)
        return cli::usageError(parsed.error().detail);
    cli::Args args = std::move(*parsed);
    if (const shoehorn::Error e = cli::checkForCommand(cmd, args))
        return cli::usageError(e.detail);
    // From here on what was read decides ("-p --json" is a prompt, not the flag).
    cli::setJsonErrors(args.json && (cmd == "info" || cmd == "plan" || cmd == "fit"));
    if (args.model.empty())
        return cli::usageError(cmd + " needs a MODEL.gguf (see shoehorn-cli --help)");
    return runOnModel(cmd, args);
}

} // namespace

// What a command printed must have reached its output: a full disk or a closed pipe under a
// script fails the command instead of ending 0 with the answer lost.
int main(int argc, char **argv)
{
    // A closed standard stream would be the next file opened (a model, a key file): writes meant
    // for it must not land there. It becomes /dev/null, and a closed output fails the command.
    bool outputClosed = false;
    for (int fd = 0; fd <= 2; ++fd)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            outputClosed = outputClosed || fd == 1;
            if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) != fd)
                return 2;
        }
    const int rc = run(argc, argv);
    // serve and rpc-worker log to stdout while they run; their work is not their output.
    const bool answersOnStdout = argc < 2 || (std::strcmp(argv[1], "serve") != 0 && std::strcmp(argv[1], "rpc-worker") != 0);
    if (answersOnStdout && (outputClosed || std::fflush(stdout) != 0 || std::ferror(stdout))) {
        std::fprintf(stderr, "error: the output could not be written (%s)\n",
                     outputClosed ? "standard output is closed" : std::strerror(errno));
        return rc ? rc : 1;
    }
    return rc;
}
