#include "units.h"

#include "modelinfo.h"

QString bytesText(quint64 bytes)
{
    return QString::fromStdString(shoehorn::formatBytes(bytes));
}

QString contextText(uint32_t c)
{
    return c >= 1024 && c % 1024 == 0 ? QStringLiteral("%1k").arg(c / 1024) : QString::number(c);
}
