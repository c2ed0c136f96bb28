#include "deltabatcher.h"

DeltaBatcher::DeltaBatcher(int intervalMs) : m_intervalMs(intervalMs)
{
    m_sinceTake.start();
}

void DeltaBatcher::add(const char *content, size_t contentLen, const char *reasoning, size_t reasoningLen)
{
    m_content.append(content, qsizetype(contentLen));
    m_reasoning.append(reasoning, qsizetype(reasoningLen));
}

bool DeltaBatcher::due() const
{
    return !isEmpty() && m_sinceTake.elapsed() >= m_intervalMs;
}

void DeltaBatcher::take(QString &content, QString &reasoning)
{
    // The engine hands out complete UTF-8 only, so each batch decodes on its own.
    content = QString::fromUtf8(m_content);
    reasoning = QString::fromUtf8(m_reasoning);
    m_content.clear();
    m_reasoning.clear();
    m_sinceTake.restart();
}
