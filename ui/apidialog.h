#pragma once

#include "apicontroller.h"

#include <QDialog>

class QCheckBox;
class QLabel;
class QLayout;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QToolButton;

// Serve > Local API: llama.cpp's server on the loaded model, for other tools. Settings (off by
// default, remembered), start/stop, and while it runs: the address, live slots, requests,
// the last errors and examples to paste.
class ApiDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ApiDialog(ApiController *api, QWidget *parent = nullptr);

    // Test seam: where Copy puts text (default: the clipboard).
    using Copier = std::function<void(const QString &)>;
    void setCopier(Copier copier) { m_copy = std::move(copier); }

    QPushButton *toggleButton() const { return m_toggle; }
    QString message() const; // what the status line says

private:
    QWidget *buildSettings();
    QLayout *buildKeyRow(const ApiConfig &config);
    QWidget *buildLive();
    QWidget *buildExamples();
    ApiConfig configFromFields() const;
    void toggle();
    void onState(ApiController::State state);
    void onFailed(const shoehorn::Error &error, int freePort);
    void onStatus(const shoehorn::ApiStatus &status);
    void refreshExamples();
    void showWebChat();
    void refreshExposure();
    void copy(const QString &text);

    ApiController *m_api;
    Copier m_copy;
    QLineEdit *m_host = nullptr;
    QSpinBox *m_port = nullptr;
    QLineEdit *m_key = nullptr;
    QToolButton *m_showKey = nullptr;
    QCheckBox *m_noKey = nullptr;
    QLineEdit *m_origins = nullptr;
    QLabel *m_exposure = nullptr;
    QSpinBox *m_parallel = nullptr;
    QCheckBox *m_metrics = nullptr;
    QWidget *m_settingsBox = nullptr;
    QPushButton *m_toggle = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_usePort = nullptr;
    int m_offeredPort = 0;
    QWidget *m_liveBox = nullptr;
    QLabel *m_url = nullptr;
    QLabel *m_webChat = nullptr;
    QLabel *m_requests = nullptr;
    QTableWidget *m_slots = nullptr;
    QPlainTextEdit *m_errors = nullptr;
    QTabWidget *m_examples = nullptr;
    QPlainTextEdit *m_curl = nullptr;
    QPlainTextEdit *m_python = nullptr;
    QPlainTextEdit *m_javascript = nullptr;
};
