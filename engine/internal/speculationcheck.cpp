#include "speculationcheck.h"

#include "modelinfo.h"

#include <cstdlib>

namespace shoehorn::internal {

namespace {

// llama.cpp's tolerance between the target's and the draft's vocabulary sizes
// (SPEC_VOCAB_MAX_SIZE_DIFFERENCE in common/speculative.cpp).
constexpr long kVocabSizeTolerance = 128;

using Why = SpeculationOff::Why;

SpeculationOff draftProblem(const Model &model, const std::string &path)
{
    auto draft = inspectModel(path);
    if (!draft)
        // A file that is not there: the code's sentence (the detail only repeats the path).
        return {Why::DraftUnreadable, path,
                "-md " + path + ": " +
                    (draft.error().code == ErrorCode::FileNotFound ? errorCodeSentence(draft.error().code)
                                                                   : errorMessage(draft.error()))};
    const long target = long(model.info().vocabSize);
    const long other = long(draft->vocabSize);
    if (std::labs(target - other) > kVocabSizeTolerance)
        return {Why::DraftVocabulary, path,
                "-md " + path + ": its vocabulary has " + std::to_string(other) + " tokens and the model's " +
                    std::to_string(target) + "; a draft model must come from the same family (the same tokenizer)"};
    return {};
}

} // namespace

SpeculationOff speculationProblem(const Model &model, const SpeculationSettings &s)
{
    if (s.mtp()) {
        if (model.info().mtpLayers == 0)
            return {Why::NoMtpLayer, {}, "--spec-type draft-mtp: this model has no MTP layer (" + model.info().architecture +
                   ".nextn_predict_layers is 0: the GGUF was converted without it); use n-gram speculation or a draft "
                   "model"};
        if (!model.settings().mtpLayers && s.draftModel.empty())
            return {Why::MtpNotLoaded, {},
                    "--spec-type draft-mtp: the model was loaded without its MTP layer; load it again with "
                    "speculation on"};
    }
    if (!s.draftModel.empty())
        return draftProblem(model, s.draftModel);
    return {};
}

} // namespace shoehorn::internal
