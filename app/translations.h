#pragma once

class QCoreApplication;
class QString;

// Loads Shoehorn's and Qt's translations for the chosen language: the SHOEHORN_LANG
// environment variable, else the "language" setting, else the system locale.
QString installTranslations(QCoreApplication &app);
