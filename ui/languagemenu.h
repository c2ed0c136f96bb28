#pragma once

#include <QMenu>

#include <functional>

// View > Language: the system language, English or Simplified Chinese, from the next start.
class LanguageMenu : public QMenu
{
    Q_OBJECT
public:
    // `tell` says that the change takes effect at the next start.
    LanguageMenu(std::function<void(const QString &title, const QString &text)> tell, QWidget *parent = nullptr);
};
