#include "promptprogress.h"

QString PromptProgress::starting()
{
    return tr("Reading the prompt…");
}

QString PromptProgress::update(int done, int total)
{
    if (done >= total) {
        m_timer.invalidate();
        return tr("Writing…");
    }
    if (!m_timer.isValid() || done == 0)
        m_timer.start();
    const double rate = m_timer.elapsed() > 0 ? done * 1000.0 / double(m_timer.elapsed()) : 0;
    const int left = rate > 0 ? int((total - done) / rate + 0.5) : -1;
    const int percent = total ? 100 * done / total : 0;
    return left >= 0 ? tr("Reading the prompt: %1% (%2 s left)").arg(percent).arg(left)
                     : tr("Reading the prompt: %1%").arg(percent);
}

QString PromptProgress::image(int number, int count)
{
    return count > 1 ? tr("Looking at image %1 of %2…").arg(number).arg(count) : tr("Looking at the image…");
}
