#pragma once

#include <QElapsedTimer>
#include <QString>

// Collects streamed text on the worker thread and releases it at most every `intervalMs`,
// so the GUI gets ~30 signals a second however fast tokens come.
class DeltaBatcher
{
public:
    explicit DeltaBatcher(int intervalMs = 33);
    void add(const char *content, size_t contentLen, const char *reasoning, size_t reasoningLen);
    // True when there is text and the interval has passed since the last take().
    bool due() const;
    bool isEmpty() const { return m_content.isEmpty() && m_reasoning.isEmpty(); }
    void take(QString &content, QString &reasoning);

private:
    int m_intervalMs;
    QElapsedTimer m_sinceTake;
    QByteArray m_content;
    QByteArray m_reasoning;
};
