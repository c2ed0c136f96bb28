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

    // Called again (View > Language's next start, tests): the last call's catalogues go first.
    for (QTranslator *old : app.findChildren<QTranslator *>(QStringLiteral("shoehornTranslator"), Qt::FindDirectChildrenOnly)) {
        QCoreApplication::removeTranslator(old);
        delete old;
    }
    auto *ours = new QTranslator(&app);
    ours->setObjectName(QStringLiteral("shoehornTranslator"));
    // A language without a catalogue of ours (C, de_DE, fr_FR) reads English, with English
    // plurals: without the English catalogue it read "4 layer(s)".
    if (ours->load(locale, QStringLiteral("shoehorn"), QStringLiteral("_"), QStringLiteral(":/i18n")) ||
        ours->load(QLocale(QLocale::English), QStringLiteral("shoehorn"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(ours);
    auto *qt = new QTranslator(&app);
    qt->setObjectName(QStringLiteral("shoehornTranslator"));
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    return locale.name();
}
