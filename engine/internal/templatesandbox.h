#pragma once

#include "chattemplate.h"
#include "error.h"
#include "helperprocess.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace shoehorn::internal {

// A model's chat template is a program from the file. The first-open check renders it for
// sample conversations under limits; a template can still behave there and spin or eat memory
// on the user's real message. The sandbox renders every turn in a helper process that keeps
// the model's vocabulary and templates loaded (`shoehorn-cli render-template MODEL`, a few
// milliseconds a turn): under the check's heap limit, with the check's time limit per render,
// and killed at once when `cancel` is set. A helper that died is started again for the next turn.
class TemplateSandbox
{
public:
    TemplateSandbox(std::string helper, std::string modelPath, int seconds, uint64_t heapBytes);
    ~TemplateSandbox() = default;
    TemplateSandbox(const TemplateSandbox &) = delete;
    TemplateSandbox &operator=(const TemplateSandbox &) = delete;

    // What ChatTemplates::render() gives, from the helper. TemplateFailed names a render that did
    // not finish in time, needed more memory than allowed or crashed; Cancelled when `cancel` was
    // set meanwhile.
    Result<ChatPrompt> render(const std::vector<ChatMessage> &history, const GenerationOptions &options,
                              const std::atomic<bool> *cancel);

    // Starts the helper now, so that it loads the vocabulary while the user types.
    void warmUp();

    // The helper's side: serves render requests on stdin/stdout until EOF. Exit status.
    static int serve(const std::string &modelPath);

private:
    Error start();
    Error failure(const char *during, bool timedOut);

    std::string m_helper;
    std::string m_model;
    int m_seconds;
    uint64_t m_heapBytes;
    HelperProcess m_process;
    std::string m_out;
    std::string m_err;
    bool m_ready = false;
};

} // namespace shoehorn::internal
