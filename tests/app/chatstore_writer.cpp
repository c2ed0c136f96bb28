// Helper for tst_chatstore: writes a chat into the store forever, the way the app does
// (finished messages committed at once, a streaming answer checkpointed), and reports on
// stdout what it has committed. The test kills it with SIGKILL at random moments.
#include "chatstore.h"

#include <QCoreApplication>
#include <QThread>

#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 3)
        return 2;
    ChatStore store;
    // A write that fails says why and ends the writer: it reports only what was written.
    const auto failed = [](const shoehorn::Error &e) {
        std::fprintf(stderr, "write failed: %s\n", e.detail.c_str());
        return 1;
    };
    if (auto opened = store.open(QString::fromLocal8Bit(argv[1])); !opened)
        return failed(opened.error());
    const int checkpointMs = atoi(argv[2]);
    const auto existing = store.conversations();
    qint64 conv = existing.isEmpty() ? 0 : existing.first().id;
    if (!conv) {
        const auto created = store.createConversation("crash test", "/m.gguf", "sys");
        if (!created)
            return failed(created.error());
        conv = *created;
    }
    for (int turn = 0;; ++turn) {
        ChatStore::Message q = ChatStore::message(conv, "user", QStringLiteral("question %1").arg(turn), "done");
        const auto qid = store.appendMessage(conv, q);
        if (!qid)
            return failed(qid.error());
        std::printf("committed %lld %d\n", *qid, int(q.content.size()));
        std::fflush(stdout);
        ChatStore::Message a = ChatStore::message(conv, "assistant", {}, "streaming");
        const auto aid = store.appendMessage(conv, a);
        if (!aid)
            return failed(aid.error());
        QString text;
        for (int chunk = 0; chunk < 20; ++chunk) {
            text += QStringLiteral("token%1 ").arg(chunk);
            if (auto saved = store.updateMessage(*aid, text, {}, "streaming"); !saved)
                return failed(saved.error());
            std::printf("checkpoint %lld %d\n", *aid, int(text.size()));
            std::fflush(stdout);
            QThread::msleep(checkpointMs);
        }
        if (auto saved = store.updateMessage(*aid, text, {}, "done"); !saved)
            return failed(saved.error());
        std::printf("committed %lld %d\n", *aid, int(text.size()));
        std::fflush(stdout);
    }
}
