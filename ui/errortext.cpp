#include "errortext.h"

#include "error.h"
#include "modelinfo.h"
#include "chatsession.h"
#include "conversationrepository.h"
#include "oomladder.h"
#include "units.h"

#include <QDir>

using shoehorn::ErrorCode;

QString ErrorText::title(ErrorCode code)
{
    if (shoehorn::isFileError(code))
        return tr("Cannot open this model");
    switch (code) {
    case ErrorCode::Cancelled: return tr("Cancelled");
    case ErrorCode::OutOfMemory: return tr("Not enough memory");
    default: return tr("Something went wrong");
    }
}

QString ErrorText::message(const shoehorn::Error &error)
{
    QString text;
    const QString detail = QString::fromStdString(error.detail);
    switch (error.code) {
    case ErrorCode::None: text = tr("No error."); break;
    case ErrorCode::FileNotFound: text = tr("The file does not exist: it may have been moved, renamed or deleted."); break;
    case ErrorCode::FileUnreadable: text = tr("The file cannot be read: check that it is yours to read and that the disk is there."); break;
    case ErrorCode::NotGguf: text = tr("This is not a GGUF model file: Shoehorn opens llama.cpp's .gguf models."); break;
    case ErrorCode::UnsupportedVersion: text = tr("This GGUF version is not supported: get the model converted by a current llama.cpp."); break;
    case ErrorCode::Truncated:
        text = tr("The file is incomplete. Was the download interrupted?");
        break;
    case ErrorCode::Corrupt: text = tr("The file is damaged or not a valid model: download it again, or get it from another source."); break;
    case ErrorCode::SplitMissing: text = tr("A part of this split model is missing: put every part in the same folder."); break;
    case ErrorCode::InvalidArgument: text = tr("A setting has an invalid value."); break;
    case ErrorCode::LoadFailed: text = tr("llama.cpp could not load the model."); break;
    case ErrorCode::OutOfMemory:
        text = tr("The model or its context does not fit in memory. Try fewer GPU layers or a smaller context.");
        break;
    case ErrorCode::Cancelled: text = tr("The operation was cancelled."); break;
    case ErrorCode::ContextFailed: text = tr("The context could not be created."); break;
    case ErrorCode::TemplateFailed: text = tr("The model's chat template failed."); break;
    case ErrorCode::TokenizeFailed: text = tr("The message could not be tokenized."); break;
    case ErrorCode::DecodeFailed: text = tr("Generation failed."); break;
    case ErrorCode::NoModel: text = tr("No model is loaded."); break;
    case ErrorCode::PromptTooLong:
        text = tr("The message is longer than the context. Increase the context size or shorten it.");
        break;
    case ErrorCode::AddressInUse:
        text = tr("The port is already in use by another program, or this address cannot be used.");
        break;
    case ErrorCode::ServeFailed: text = tr("The local API could not start."); break;
    case ErrorCode::ProjectorMismatch: text = tr("The vision projector (mmproj) does not belong to this model: use the mmproj file that came with it."); break;
    case ErrorCode::ProjectorFailed: text = tr("The vision projector (mmproj) could not be loaded or run."); break;
    case ErrorCode::ImageInvalid: text = tr("The image cannot be used: attach a PNG, JPEG, BMP or GIF picture."); break;
    case ErrorCode::NoProjector: text = tr("This model cannot see images: no vision projector (mmproj) is paired with it."); break;
    case ErrorCode::RemoteFailed: text = tr("A remote machine cannot be reached or used: check that its worker (shoehorn-cli rpc-worker) runs and that this computer may connect to it."); break;
    case ErrorCode::FileUnwritable: text = tr("The file cannot be written: check that the folder is yours to write in and that the disk has room."); break;
    case ErrorCode::Busy: text = tr("The model is busy: wait until it has finished loading, answering or being tuned."); break;
    case ErrorCode::FileCheckFailed: text = tr("This file failed the safety check before loading: it would crash or hang Shoehorn, so it was not loaded. Get the model from another source, or one with a fixed chat template."); break;
    }
    if (!detail.isEmpty())
        text += QLatin1Char('\n') + tr("Details: %1").arg(detail);
    return text;
}

QString ErrorText::retry(const shoehorn::OomRetry &r)
{
    QString failed;
    if (!r.failure.buffer.empty() && r.failure.bytes > 0)
        failed = tr("Out of memory: the %1 buffer needed %2.")
                     .arg(QString::fromStdString(r.failure.buffer),
                          bytesText(r.failure.bytes));
    else
        failed = tr("Out of memory while loading.");
    QString next;
    switch (r.step) {
    case shoehorn::LadderStep::SpeculationOff:
        next = tr("Retrying without speculative decoding (its draft context needs memory of its own).");
        break;
    case shoehorn::LadderStep::MoreExpertsOnCpu:
        next = tr("Retrying with the experts of %1 layers on the CPU.").arg(r.after.load.cpuMoeLayers);
        break;
    case shoehorn::LadderStep::FewerGpuLayers:
        next = tr("Retrying with %1 layers on the GPU.").arg(r.after.load.gpuLayers);
        break;
    case shoehorn::LadderStep::SmallerContext:
        next = tr("Retrying with a context of %1 tokens.").arg(r.after.context.contextSize);
        break;
    case shoehorn::LadderStep::QuantizedKv:
        next = tr("Retrying with a q8_0 KV cache.");
        break;
    }
    return failed + QLatin1Char(' ') + next;
}

QString ErrorText::speculationOff(const shoehorn::SpeculationOff &off)
{
    using Why = shoehorn::SpeculationOff::Why;
    const QString detail = QString::fromStdString(off.detail);
    switch (off.why) {
    case Why::None: return {};
    case Why::NoMtpLayer:
        return tr("Speculative decoding is off: this model file has no MTP layer (it was converted without it). "
                  "Choose n-gram or a draft model.");
    case Why::MtpNotLoaded:
        return tr("Speculative decoding is off: the model was loaded without its MTP layer. Reload it.");
    case Why::DraftUnreadable:
        return tr("Speculative decoding is off: the draft model %1 cannot be read as a GGUF model.").arg(detail);
    case Why::DraftVocabulary:
        return tr("Speculative decoding is off: the draft model %1 has another vocabulary than this model; "
                  "a draft model must come from the same family.").arg(detail);
    case Why::Refused:
        return tr("Speculative decoding is off: llama.cpp did not start it (%1).").arg(detail);
    case Why::DraftFailedCheck:
        return tr("Speculative decoding is off: the draft model %1 failed the safety check before loading (%2).")
            .arg(detail, QString::fromStdString(off.reason));
    }
    return {};
}

QString ErrorText::history(const HistoryProblem &p)
{
    using Kind = HistoryProblem::Kind;
    const QString shown = QDir::toNativeSeparators(p.path);
    const QString why = p.reason.isEmpty() ? tr("its integrity check failed") : p.reason;
    const QString aside = QDir::toNativeSeparators(p.movedTo);
    switch (p.kind) {
    case Kind::None: return {};
    case Kind::ReadOnlyNewer:
        return tr("The chat history %1 was written by a newer version of Shoehorn (%2). It is open "
                  "read-only: you can read your chats, but new ones are not saved.")
            .arg(shown, p.reason);
    case Kind::CannotCreate:
        return tr("The chat history cannot be created at %1 (%2): chats are not saved.").arg(shown, why);
    case Kind::CannotMoveAside:
        return tr("The chat history %1 cannot be read (%2), and it cannot be moved aside: chats are not "
                  "saved until it is fixed or removed.")
            .arg(shown, why);
    case Kind::MovedAside:
        return tr("The chat history %1 could not be read (%2). It was moved, unchanged, to %3, and a "
                  "new history was started.")
            .arg(shown, why, aside);
    case Kind::MovedAsideNoNew:
        return tr("The chat history %1 could not be read (%2); it was moved to %3, but a new one cannot "
                  "be created (%4): chats are not saved.")
            .arg(shown, why, aside, p.newReason);
    }
    return {};
}

QString ErrorText::historyWrite(ConversationRepository::Write what)
{
    using Write = ConversationRepository::Write;
    switch (what) {
    case Write::NewChat: return tr("the new chat");
    case Write::ChatSettings: return tr("the chat's settings");
    case Write::ChatName: return tr("the chat's new name");
    case Write::DeletingChat: return tr("deleting the chat");
    case Write::ChatModel: return tr("the chat's model");
    case Write::Question: return tr("your message");
    case Write::Answer: return tr("the answer");
    case Write::NewVersion: return tr("the new version of the answer");
    case Write::EditedQuestion: return tr("the edited message");
    case Write::DeletingMessage: return tr("deleting the message");
    case Write::ShownVersion: return tr("the version shown");
    }
    return {};
}
