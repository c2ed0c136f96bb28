#include "translations.h"

#include "appsettings.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

QString installTranslations(QCoreApplication &app)
{
    QString name = qEnvironmentVariable("SHOEHORN_LANG");
    if (name.isEmpty())
        name = AppSettings::language();
    const QLocale locale = name.isEmpty() ? QLocale::system() : QLocale(name);
    QLocale::setDefault(locale);

    auto *ours = new QTranslator(&app);
    if (ours->load(locale, QStringLiteral("shoehorn"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(ours);
    auto *qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    return locale.name();
}
