#pragma once

#include "hardware.h"
#include "modelinfo.h"

#include <cstdint>
#include <vector>

// Where llama.cpp's scheduler (ggml_backend_sched) runs the work of one worst-case ubatch, given
// where the weights lie: what the analytic planner needs to size each device's compute buffer.
namespace shoehorn::internal {

// Whether device d (-1: the CPU) holds a weight of this size. A GPU backend may refuse big
// tensors (Vulkan: past the driver's maxStorageBufferRange); llama.cpp's weight_buft_supported()
// then keeps the weight in RAM and the CPU runs its product.
bool takesWeight(const PlanTarget &t, int d, uint64_t bytes);

// Where llama.cpp puts a weight (-1: RAM), given `placed`, the device of its layer (or of the
// output): the experts of the first cpuMoeLayers layers stay in RAM (--n-cpu-moe), and so does a
// weight the GPU refuses (takesWeight). The one rule the weights' and the compute's plans share.
int weightDevice(const TensorInfo &ti, int placed, int cpuMoeLayers, const PlanTarget &t);

// What one device computes of a worst-case ubatch.
struct ComputeShare {
    int layers = 0;           // repeating layers whose attention runs here
    bool output = false;      // the output layer runs here
    bool experts = false;     // routed experts of a layer: gate, up and down all run here
    bool gateUpOnly = false;  // gate/up products here, the down product elsewhere
    bool downOnly = false;    // only the down product here
    bool expertsBack = false; // a layer here whose experts ran elsewhere: their output comes back
    uint64_t gateUpCopy = 0;  // the largest expert gate/up weight copied in from RAM for a ubatch
    uint64_t downCopy = 0;    // the same for a down weight
    uint64_t denseCopy = 0;   // the largest other weight copied in (layers left in RAM)
    uint64_t kvCopy = 0;      // K and V of the largest such layer, copied in for its attention
};

// The GPU that takes the big-batch products of weights in RAM (the first local one; an RPC
// device does not offload), or -1.
int offloadingGpu(const PlanTarget &t);

// Whether a weight that lies in RAM goes to that GPU's host buffer: llama.cpp's CPU buffer list
// puts the first GPU's host buffer type before the CPU's repacking and plain ones
// (make_cpu_buft_list), for every weight the GPU would run (weight_buft_supported asks the GPU),
// so that big batches can be handed to it. With mmap it is the plain mapped buffer instead; either
// way the weight is not repacked and the GPU can take its products.
bool hostPinned(const TensorInfo &ti, const PlanTarget &t);

// Per device, the GPUs then the CPU. layerDevice: the device of each repeating layer's weights
// and, last, of the output (-1: the CPU). layerKv: each layer's K and V bytes. T: the ubatch's
// tokens; outputs: the logits it reserves.
std::vector<ComputeShare> splitGraph(const ModelInfo &m, int cpuMoeLayers, const PlanTarget &t,
                                     const std::vector<int> &layerDevice, const std::vector<uint64_t> &layerKv,
                                     uint64_t T, uint64_t outputs);

} // namespace shoehorn::internal
