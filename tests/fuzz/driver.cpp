// Replays a corpus through the fuzz target, then random mutations of it (deterministic for a
// seed): the short, bounded fuzz run of the test command. tools/fuzz.sh runs libFuzzer instead.
//   fuzz_gguf_replay CORPUS_DIR ITERATIONS [SEED]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern long g_fuzzAccepted;

namespace {

using Bytes = std::vector<uint8_t>;

// Where each occurrence of `what` ends.
std::vector<size_t> after(const Bytes &b, const std::string &what)
{
    std::vector<size_t> out;
    for (auto it = b.begin(); (it = std::search(it, b.end(), what.begin(), what.end())) != b.end(); ++it)
        out.push_back(size_t(it - b.begin()) + what.size());
    return out;
}

// The mutations that found the inspector's bugs: bytes flipped, lengths and counts made huge
// or negative, the file cut short, a part repeated; and those aimed at what llama.cpp asserts on
// later (a tensor's type or size, the alignment of the data). Most land in the header, where
// GGUF keeps its counts, types and offsets.
void mutate(Bytes &b, std::mt19937_64 &rng)
{
    if (b.empty())
        return;
    auto at = [&](size_t limit) { return size_t(rng() % std::max<size_t>(1, std::min(limit, b.size()))); };
    const size_t header = 4096;
    switch (rng() % 8) {
    case 0: // flip a few bytes
        for (int i = 0; i < 1 + int(rng() % 8); ++i)
            b[at(header)] ^= uint8_t(1u << (rng() % 8));
        break;
    case 1: { // an extreme 64-bit value
        static const uint64_t extremes[] = {0, 1, 0xff, 0xffff, 0x7fffffff, 0xffffffff, 0x7fffffffffffffffull,
                                            0xffffffffffffffffull, 1ull << 50, 1ull << 63};
        const uint64_t v = extremes[rng() % std::size(extremes)];
        const size_t p = at(header);
        for (size_t i = 0; i < 8 && p + i < b.size(); ++i)
            b[p + i] = uint8_t(v >> (8 * i));
        break;
    }
    case 2: // cut short
        b.resize(at(b.size()));
        break;
    case 3: { // repeat a part
        const size_t p = at(header), n = std::min<size_t>(rng() % 64, b.size() - p);
        b.insert(b.begin() + long(p), b.begin() + long(p), b.begin() + long(p + n));
        break;
    }
    case 4: // a 32-bit type or count
        if (b.size() > 4) {
            const size_t p = at(header);
            const uint32_t v = uint32_t(rng() % 40);
            for (size_t i = 0; i < 4 && p + i < b.size(); ++i)
                b[p + i] = uint8_t(v >> (8 * i));
        }
        break;
    case 5: { // a tensor's type or one of its sizes (after a "...weight" name: dims, shape, type)
        const auto spots = after(b, ".weight");
        if (spots.empty())
            break;
        const size_t p = spots[rng() % spots.size()];
        if (p + 4 > b.size())
            break;
        const uint32_t dims = uint32_t(b[p]) | uint32_t(b[p + 1]) << 8;
        if (dims == 0 || dims > 4)
            break;
        const bool type = rng() % 2;
        const size_t q = type ? p + 4 + 8 * dims : p + 4 + 8 * (rng() % dims);
        const uint64_t v = type ? rng() % 42 : (rng() % 3 == 0 ? 0 : rng() % 4096);
        for (size_t i = 0; i < (type ? 4 : 8) && q + i < b.size(); ++i)
            b[q + i] = uint8_t(v >> (8 * i));
        break;
    }
    case 6: { // general.alignment: another power of two (or not), value after the key and its type
        const auto spots = after(b, "general.alignment");
        if (spots.empty() || spots.front() + 8 > b.size())
            break;
        const uint32_t v = rng() % 8 ? 1u << (rng() % 8) : uint32_t(rng() % 100);
        for (size_t i = 0; i < 4; ++i)
            b[spots.front() + 4 + i] = uint8_t(v >> (8 * i));
        break;
    }
    default: // random bytes
        for (int i = 0; i < 16; ++i)
            b[at(b.size())] = uint8_t(rng());
        break;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CORPUS_DIR ITERATIONS [SEED]\n", argv[0]);
        return 2;
    }
    std::vector<Bytes> corpus;
    for (const auto &e : std::filesystem::directory_iterator(argv[1])) {
        std::ifstream in(e.path(), std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    if (corpus.empty()) {
        std::fprintf(stderr, "no corpus in %s\n", argv[1]);
        return 2;
    }
    std::vector<size_t> valid; // the corpus' valid models: half the mutations start from one
    for (size_t i = 0; i < corpus.size(); ++i) {
        const long before = g_fuzzAccepted;
        LLVMFuzzerTestOneInput(corpus[i].data(), corpus[i].size());
        if (g_fuzzAccepted > before)
            valid.push_back(i);
    }
    const long models = g_fuzzAccepted;
    if (models == 0) {
        std::fprintf(stderr, "no file of the corpus reaches the model inspector: the harness tests nothing\n");
        return 1;
    }
    const long iterations = std::stol(argv[2]);
    std::mt19937_64 rng(argc > 3 ? std::stoull(argv[3]) : 1);
    for (long i = 0; i < iterations; ++i) {
        Bytes b = corpus[rng() % 2 ? valid[rng() % valid.size()] : rng() % corpus.size()];
        for (int m = 0; m < 1 + int(rng() % 3); ++m)
            mutate(b, rng);
        LLVMFuzzerTestOneInput(b.data(), b.size());
    }
    std::printf("%zu corpus files (%ld models) and %ld mutations (%ld still accepted as models): no crash\n",
                corpus.size(), models, iterations, g_fuzzAccepted - models);
    return 0;
}
