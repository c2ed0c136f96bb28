#pragma once

#include <string>
#include <vector>

// Which NVIDIA cards the CUDA module can run, decided on the user's machine: the device code the
// installed module holds (its fatbin), the cards and the driver NVML reports (libnvidia-ml.so.1,
// part of NVIDIA's driver; asked without starting CUDA, so that CUDA_VISIBLE_DEVICES can still
// hide a card the module has no code for, which then runs on Vulkan).
namespace shoehorn::internal {

struct CudaCode {
    bool ptx = false; // PTX: compiled by the driver at first use for this architecture and newer
    int arch = 0;     // 86 for compute capability 8.6
};

// The code in a CUDA module's .nv_fatbin section (empty: none, or the file is not one).
std::vector<CudaCode> cudaModuleCode(const std::string &path);

// Whether a card of compute capability major.minor runs this code: machine code of its major
// version and an equal or lower minor one (exactly its own from 9.0 on, where the code is
// architecture-specific), or PTX of its architecture or an older one.
bool cudaRuns(const std::vector<CudaCode> &code, int major, int minor);

// "7.5, 8.0, 8.6, ...": the architectures of the code, for a sentence.
std::string cudaArchList(const std::vector<CudaCode> &code);

struct NvidiaCard {
    std::string name; // "NVIDIA GeForce GTX 1060 6GB"
    std::string uuid; // "GPU-...", what CUDA_VISIBLE_DEVICES takes
    int major = 0;
    int minor = 0;
};

struct NvidiaDriver {
    bool present = false; // libnvidia-ml.so.1 loaded and initialised
    int cudaVersion = 0;  // the newest CUDA the driver runs, 13000 for 13.0
    std::vector<NvidiaCard> cards;
    bool complete = true; // every card answered (name aside): only then can cards be hidden by UUID
};

NvidiaDriver queryNvidiaDriver();

} // namespace shoehorn::internal
