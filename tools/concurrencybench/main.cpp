// The desktop chat and the local API at the same time on one loaded model, as a user of the
// window does while an editor plugin streams (tools/concurrency-bench.sh drives it). Loads the
// model as the app does (one server loop, the chat's slot and one API slot), opens the API on
// loopback, prints "listening on URL", then takes commands on stdin, one per line:
//   chat N TAG   the desktop chat writes N tokens (end of generation ignored) and prints
//                {"tag": TAG, "tokens": N, "first": MS, "last": MS} (MS: milliseconds since the
//                Unix epoch of its first and last token, to line up with the API client's clock)
//   quit
//   shoehorn-concurrency-bench MODEL [-c N] [-t N] [--port N] [--api-slots N]
#include "apiserver.h"
#include "validate.h"
#include "chatsession.h"
#include "model.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>

using namespace shoehorn;

namespace {

double nowMs()
{
    using namespace std::chrono;
    return duration<double, std::milli>(system_clock::now().time_since_epoch()).count();
}

int fail(const std::string &what)
{
    std::fprintf(stderr, "error: %s\n", what.c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        return fail("usage: shoehorn-concurrency-bench MODEL [-c N] [-t N] [--port N] [--api-slots N] "
                    "[--spec-type T]");
    ContextSettings context;
    ApiServerOptions api;
    api.port = 0;
    ApiSlotSettings slots;
    slots.count = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const int value = std::atoi(argv[i + 1]);
        if (flag == "--spec-type") // speculative decoding, as llama-server's flag
            context.speculation.types = argv[i + 1];
        else if (flag == "-c")
            context.contextSize = uint32_t(value);
        else if (flag == "-t")
            context.threads = value;
        else if (flag == "--port")
            api.port = value;
        else if (flag == "--api-slots")
            slots.count = value;
        else
            return fail("unknown flag " + flag);
    }
    if (Error e = validate(context.speculation))
        return fail(errorMessage(e));
    LoadSettings load;
    load.mtpLayers = context.speculation.mtp();
    auto model = Model::load(argv[1], load);
    if (!model)
        return fail(errorMessage(model.error()));
    auto session = ChatSession::create(*model, context, slots);
    if (!session)
        return fail(errorMessage(session.error()));
    if (Error e = (*session)->api()->open(api))
        return fail(errorMessage(e));
    std::printf("listening on %s\n", (*session)->api()->baseUrl().c_str());
    std::fflush(stdout);

    for (std::string line; std::getline(std::cin, line);) {
        std::istringstream in(line);
        std::string command, tag;
        int n = 0;
        in >> command >> n >> tag;
        if (command == "quit")
            break;
        if (command != "chat" || n <= 0) {
            std::printf("{\"error\": \"unknown command\"}\n");
            std::fflush(stdout);
            continue;
        }
        GenerationOptions o;
        o.maxTokens = n;
        o.ignoreEos = true;
        double first = 0, last = 0;
        StreamCallbacks cb;
        cb.onToken = [&](int generated, int) {
            last = nowMs();
            if (generated == 1)
                first = last;
        };
        auto r = (*session)->generate({{"user", "bench " + tag, {}}}, o, cb);
        if (!r) {
            std::printf("{\"tag\": \"%s\", \"error\": \"%s\"}\n", tag.c_str(), errorCodeName(r.error().code));
        } else {
            std::printf("{\"tag\": \"%s\", \"tokens\": %d, \"first\": %.3f, \"last\": %.3f}\n", tag.c_str(),
                        r->stats.generatedTokens, first, last);
        }
        std::fflush(stdout);
    }
    (*session)->api()->close();
    return 0;
}
