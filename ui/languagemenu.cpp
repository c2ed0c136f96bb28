#include "languagemenu.h"

#include "appsettings.h"

#include <QActionGroup>

LanguageMenu::LanguageMenu(std::function<void(const QString &, const QString &)> tell, QWidget *parent)
    : QMenu(tr("&Language"), parent)
{
    // Takes effect at the next start: every window would otherwise need retranslating.
    auto *group = new QActionGroup(this);
    const QString current = AppSettings::language();
    const QList<QPair<QString, QString>> choices{{QString(), tr("System language")},
                                                 {QStringLiteral("en"), QStringLiteral("English")},
                                                 {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
    for (const auto &[code, name] : choices) {
        QAction *a = addAction(name);
        a->setCheckable(true);
        a->setChecked(code == current);
        a->setData(code);
        a->setObjectName(QStringLiteral("language_") + (code.isEmpty() ? QStringLiteral("system") : code));
        group->addAction(a);
        connect(a, &QAction::triggered, this, [tell, code = code] {
            if (AppSettings::language() == code)
                return;
            AppSettings::setLanguage(code);
            tell(tr("Language"), tr("Shoehorn will use the new language the next time it starts."));
        });
    }
}
