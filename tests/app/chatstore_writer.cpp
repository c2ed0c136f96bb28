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
    if (!store.open(QString::fromLocal8Bit(argv[1])))
        return 1;
    const int checkpointMs = atoi(argv[2]);
    const auto existing = store.conversations();
    const qint64 conv =
        existing.isEmpty() ? store.createConversation("crash test", "/m.gguf", "sys").value() : existing.first().id;
    for (int turn = 0;; ++turn) {
        ChatStore::Message q = ChatStore::message(conv, "user", QStringLiteral("question %1").arg(turn), "done");
        const qint64 qid = store.appendMessage(conv, q).value();
        std::printf("committed %lld %d\n", qid, int(q.content.size()));
        std::fflush(stdout);
        ChatStore::Message a = ChatStore::message(conv, "assistant", {}, "streaming");
        const qint64 aid = store.appendMessage(conv, a).value();
        QString text;
        for (int chunk = 0; chunk < 20; ++chunk) {
            text += QStringLiteral("token%1 ").arg(chunk);
            store.updateMessage(aid, text, {}, "streaming");
            std::printf("checkpoint %lld %d\n", aid, int(text.size()));
            std::fflush(stdout);
            QThread::msleep(checkpointMs);
        }
        store.updateMessage(aid, text, {}, "done");
        std::printf("committed %lld %d\n", aid, int(text.size()));
        std::fflush(stdout);
    }
}
