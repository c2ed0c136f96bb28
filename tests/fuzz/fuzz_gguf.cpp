// Fuzz target: what Shoehorn itself reads from an untrusted file, in its own process, before
// anything reaches llama.cpp (llama.cpp's own loading runs in the first-open helper process):
// the GGUF inspector with its checks, the projector inspector, and the image header probe.
// Built with libFuzzer by tools/fuzz.sh (clang), and replayed with random mutations by
// fuzz_gguf_replay (driver.cpp) in the test command.
#include "modelinfo.h"
#include "projector.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

// Inputs the model inspector accepted: the replay checks that its corpus reaches the parser.
long g_fuzzAccepted = 0;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // The inspectors read files: give them one in memory.
    const int fd = memfd_create("fuzz-gguf", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += size_t(n);
    }
    const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (shoehorn::inspectModel(path).ok())
        ++g_fuzzAccepted;
    (void)shoehorn::inspectProjector(path);
    (void)shoehorn::probeImage(std::string(reinterpret_cast<const char *>(data), size));
    ::close(fd);
    return 0;
}
