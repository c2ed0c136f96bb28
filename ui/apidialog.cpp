#include "apidialog.h"

#include "errortext.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

using State = ApiController::State;

namespace {

QPlainTextEdit *codeBox()
{
    auto *e = new QPlainTextEdit;
    e->setReadOnly(true);
    e->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    e->setLineWrapMode(QPlainTextEdit::NoWrap);
    return e;
}

} // namespace

ApiDialog::ApiDialog(ApiController *api, QWidget *parent) : QDialog(parent), m_api(api)
{
    setWindowTitle(tr("Local API"));
    m_copy = [](const QString &text) { QApplication::clipboard()->setText(text); };
    // Scrolls where the screen is shorter than the dialog (a 1366x768 laptop) rather than cutting
    // its wrapped sentences: the settings keep the height their text needs.
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget;
    auto *layout = new QVBoxLayout(content);
    scroll->setWidget(content);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    auto *intro = new QLabel(tr("Other programs (editor plugins, scripts, web front ends) can use the loaded model "
                                "through the OpenAI-compatible API of llama.cpp's server. The model is not loaded "
                                "again: the chat and the API share it."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    layout->addWidget(buildSettings());

    auto *row = new QHBoxLayout;
    m_toggle = new QPushButton;
    m_toggle->setObjectName(QStringLiteral("apiToggle"));
    connect(m_toggle, &QPushButton::clicked, this, &ApiDialog::toggle);
    row->addWidget(m_toggle);
    m_message = new QLabel;
    m_message->setObjectName(QStringLiteral("apiMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    row->addWidget(m_message, 1);
    m_usePort = new QPushButton;
    m_usePort->hide();
    connect(m_usePort, &QPushButton::clicked, this, [this] {
        m_port->setValue(m_offeredPort);
        m_usePort->hide();
        toggle();
    });
    row->addWidget(m_usePort);
    layout->addLayout(row);
    // The key file could not be written: said until a save works (state messages replace the row's).
    auto *keyProblem = new QLabel;
    keyProblem->setObjectName(QStringLiteral("apiKeyProblem"));
    keyProblem->setWordWrap(true);
    keyProblem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    keyProblem->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    const auto showKeyProblem = [keyProblem](const shoehorn::Error &e) {
        keyProblem->setText(e ? tr("The API key was not saved; it works until Shoehorn quits. %1").arg(ErrorText::message(e))
                              : QString());
        keyProblem->setVisible(bool(e));
    };
    showKeyProblem(m_api->keyProblem());
    connect(m_api, &ApiController::keyProblemChanged, keyProblem, showKeyProblem);
    layout->addWidget(keyProblem);
    layout->addWidget(buildLive());
    layout->addWidget(buildExamples(), 1);

    connect(m_api, &ApiController::stateChanged, this, &ApiDialog::onState);
    connect(m_api, &ApiController::failed, this, &ApiDialog::onFailed);
    connect(m_api, &ApiController::statusUpdated, this, &ApiDialog::onStatus);
    connect(m_api, &ApiController::modelAliasChanged, this, &ApiDialog::refreshExamples);
    connect(m_api, &ApiController::configChanged, this, [this](const ApiConfig &c) { m_key->setText(c.key); });
    onState(m_api->state());
    // As tall as its content where the screen allows (it scrolls on a shorter one).
    const int available = screen() ? screen()->availableGeometry().height() - 60 : 760;
    resize(720, std::max(400, std::min(content->sizeHint().height() + 40, available)));
}

// The key, hidden until shown, with Copy and New Key.
QLayout *ApiDialog::buildKeyRow(const ApiConfig &c)
{
    auto *keyRow = new QHBoxLayout;
    m_key = new QLineEdit(c.key);
    m_key->setObjectName(QStringLiteral("apiKey"));
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(tr("made when the API starts"));
    keyRow->addWidget(m_key, 1);
    m_showKey = new QToolButton;
    m_showKey->setText(tr("Show"));
    m_showKey->setCheckable(true);
    connect(m_showKey, &QToolButton::toggled, this,
            [this](bool on) { m_key->setEchoMode(on ? QLineEdit::Normal : QLineEdit::Password); });
    keyRow->addWidget(m_showKey);
    auto *copyKey = new QToolButton;
    copyKey->setText(tr("Copy"));
    connect(copyKey, &QToolButton::clicked, this, [this] { copy(m_key->text()); });
    keyRow->addWidget(copyKey);
    auto *newKey = new QToolButton;
    newKey->setObjectName(QStringLiteral("apiNewKey"));
    newKey->setText(tr("New Key"));
    connect(newKey, &QToolButton::clicked, this, [this] { m_key->setText(ApiController::newKey()); });
    keyRow->addWidget(newKey);
    return keyRow;
}

QWidget *ApiDialog::buildSettings()
{
    const ApiConfig c = m_api->config();
    auto *box = new QGroupBox(tr("Settings"));
    m_settingsBox = box;
    auto *form = new QFormLayout(box);
    m_host = new QLineEdit(c.host);
    m_host->setObjectName(QStringLiteral("apiHost"));
    m_host->setToolTip(tr("127.0.0.1: only this computer. 0.0.0.0: every network this computer is on "
                          "(needs an API key)."));
    form->addRow(tr("Host:"), m_host);
    m_port = new QSpinBox;
    m_port->setRange(1, 65535);
    m_port->setValue(c.port > 0 ? c.port : 8080);
    form->addRow(tr("Port:"), m_port);

    form->addRow(tr("API key:"), buildKeyRow(c));
    m_noKey = new QCheckBox(tr("No key: any program on this computer may use the API (127.0.0.1 only)"));
    m_noKey->setObjectName(QStringLiteral("apiNoKey"));
    m_noKey->setChecked(c.noKey);
    m_key->setEnabled(!c.noKey);
    connect(m_noKey, &QCheckBox::toggled, this, [this](bool on) {
        m_key->setEnabled(!on);
        refreshExposure();
    });
    form->addRow(QString(), m_noKey);
    m_origins = new QLineEdit(c.corsOrigins);
    m_origins->setObjectName(QStringLiteral("apiOrigins"));
    m_origins->setToolTip(tr("Web pages of other sites your browser may let use the API (llama-server's "
                             "--cors-origins). localhost: pages served from this computer. Add origins such as "
                             "https://app.example:3000, separated by commas. * lets every web site you visit "
                             "use it. The API's own web chat is always allowed."));
    form->addRow(tr("Web pages allowed:"), m_origins);

    m_parallel = new QSpinBox;
    m_parallel->setRange(1, 16);
    m_parallel->setValue(c.parallel);
    form->addRow(tr("Parallel requests:"), m_parallel);
    m_parallel->setToolTip(tr("Requests answered at the same time (llama-server's --parallel), decoded in one "
                              "batch with the chat. Part of the model's context: a change applies when a model "
                              "is loaded next."));
    // One line in the form (the dialog must fit a laptop screen); the whole story on hover.
    auto *sharing = new QLabel(tr("Shared with the chat: the Offload panel's context and KV cache. Turning the API "
                                  "on loads nothing and takes no more memory."));
    sharing->setToolTip(tr("The chat and these requests are slots of one llama.cpp context with one KV "
                           "cache (llama.cpp's unified cache): each uses what the others leave free, up to "
                           "the context set in the Offload panel. So the memory the plan shows is the same "
                           "with the API on or off, and turning it on loads nothing."));
    sharing->setObjectName(QStringLiteral("apiSharing"));
    sharing->setWordWrap(true);
    form->addRow(tr("Context:"), sharing);
    m_metrics = new QCheckBox(tr("Prometheus metrics at /metrics"));
    m_metrics->setChecked(c.metrics);
    form->addRow(QString(), m_metrics);
    m_exposure = new QLabel;
    m_exposure->setObjectName(QStringLiteral("apiExposure"));
    m_exposure->setWordWrap(true);
    m_exposure->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    form->addRow(m_exposure);
    connect(m_host, &QLineEdit::textChanged, this, &ApiDialog::refreshExposure);
    connect(m_origins, &QLineEdit::textChanged, this, &ApiDialog::refreshExposure);
    refreshExposure();
    return box;
}

QWidget *ApiDialog::buildLive()
{
    auto *box = new QGroupBox(tr("Serving"));
    m_liveBox = box;
    auto *v = new QVBoxLayout(box);
    auto *urlRow = new QHBoxLayout;
    m_url = new QLabel;
    m_url->setObjectName(QStringLiteral("apiUrl"));
    m_url->setTextInteractionFlags(Qt::TextSelectableByMouse);
    urlRow->addWidget(m_url, 1);
    auto *copyUrl = new QToolButton;
    copyUrl->setText(tr("Copy"));
    connect(copyUrl, &QToolButton::clicked, this, [this] { copy(m_api->baseUrl() + QStringLiteral("/v1")); });
    urlRow->addWidget(copyUrl);
    v->addLayout(urlRow);
    // llama.cpp's web chat, on the same loaded model (it asks for the key itself).
    m_webChat = new QLabel;
    m_webChat->setObjectName(QStringLiteral("webChat"));
    m_webChat->setOpenExternalLinks(true);
    m_webChat->setWordWrap(true);
    v->addWidget(m_webChat);
    m_requests = new QLabel;
    m_requests->setObjectName(QStringLiteral("apiRequests"));
    v->addWidget(m_requests);
    m_slots = new QTableWidget(0, 4);
    m_slots->setHorizontalHeaderLabels({tr("Slot"), tr("State"), tr("Tokens"), tr("Tokens/s")});
    m_slots->verticalHeader()->hide();
    m_slots->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_slots->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_slots->setMinimumHeight(110);
    m_slots->setMaximumHeight(170);
    v->addWidget(m_slots);
    v->addWidget(new QLabel(tr("Last errors:")));
    m_errors = new QPlainTextEdit;
    m_errors->setReadOnly(true);
    m_errors->setMaximumHeight(70);
    v->addWidget(m_errors);
    return box;
}

QWidget *ApiDialog::buildExamples()
{
    auto *box = new QGroupBox(tr("Examples (they work as pasted while the API is on)"));
    auto *v = new QVBoxLayout(box);
    m_examples = new QTabWidget;
    m_curl = codeBox();
    m_python = codeBox();
    m_javascript = codeBox();
    m_examples->addTab(m_curl, QStringLiteral("curl"));
    m_examples->addTab(m_python, QStringLiteral("Python (openai)"));
    m_examples->addTab(m_javascript, QStringLiteral("JavaScript (openai)"));
    v->addWidget(m_examples);
    auto *copyExample = new QPushButton(tr("Copy Example"));
    connect(copyExample, &QPushButton::clicked, this, [this] {
        copy(static_cast<QPlainTextEdit *>(m_examples->currentWidget())->toPlainText());
    });
    v->addWidget(copyExample, 0, Qt::AlignRight);
    return box;
}

ApiConfig ApiDialog::configFromFields() const
{
    ApiConfig c;
    c.host = m_host->text().trimmed();
    c.port = m_port->value();
    c.key = m_key->text().trimmed();
    c.noKey = m_noKey->isChecked();
    c.corsOrigins = m_origins->text().trimmed().isEmpty() ? QStringLiteral("localhost") : m_origins->text().trimmed();
    c.parallel = m_parallel->value();
    c.metrics = m_metrics->isChecked();
    return c;
}

void ApiDialog::toggle()
{
    if (m_api->state() == State::On) {
        m_api->stop();
        return;
    }
    const ApiConfig c = configFromFields();
    if (c.host.trimmed().isEmpty()) { // it read "can be reached from other computers" (llama.cpp: "--host: empty")
        m_message->setText(tr("Enter the address to listen on: 127.0.0.1 for this computer only, 0.0.0.0 for "
                              "every network."));
        return;
    }
    if (!ApiController::plausibleHost(c.host)) { // not "needs an API key" for a host that cannot be
        m_message->setText(tr("%1 is not an address or a host name: 127.0.0.1 is this computer only, 0.0.0.0 "
                              "every network.").arg(c.host.trimmed()));
        return;
    }
    if (ApiController::needsKey(c)) {
        m_message->setText(tr("%1 can be reached from other computers: it needs an API key (untick No key).").arg(c.host));
        return;
    }
    if (const auto e = ApiController::check(c)) {
        m_message->setText(ErrorText::message(e));
        return;
    }
    m_usePort->hide();
    m_api->setConfig(c);
    m_api->start();
}

QString ApiDialog::message() const
{
    return m_message->text();
}

void ApiDialog::onState(State state)
{
    const bool on = state == State::On;
    const bool busy = state == State::Starting || state == State::Stopping;
    m_settingsBox->setEnabled(state == State::Off);
    m_toggle->setEnabled(!busy);
    m_toggle->setText(on ? tr("Stop API") : tr("Start API"));
    m_liveBox->setEnabled(on);
    switch (state) {
    case State::Off: m_message->setText(tr("Off.")); break;
    case State::Starting: m_message->setText(tr("Starting…")); break;
    case State::Stopping: m_message->setText(tr("Stopping…")); break;
    case State::On: m_message->setText(tr("On: serving the loaded model.")); break;
    }
    if (!on) {
        m_url->clear();
        m_webChat->clear();
        m_requests->clear();
        m_slots->setRowCount(0);
    } else {
        m_url->setText(m_api->baseUrl() + QStringLiteral("/v1"));
        showWebChat();
    }
    refreshExamples();
}

void ApiDialog::showWebChat()
{
    const QString missing = ApiController::webChatMissing();
    const QString url = m_api->baseUrl() + QLatin1Char('/');
    m_webChat->setText(missing.isEmpty()
                           ? tr("Web chat in your browser: <a href=\"%1\">%1</a>").arg(url.toHtmlEscaped())
                           : tr("Web chat: not built into this Shoehorn (%1).").arg(missing.toHtmlEscaped()));
}

void ApiDialog::onFailed(const shoehorn::Error &error, int freePort)
{
    QString text = ErrorText::message(error);
    if (error.code == shoehorn::ErrorCode::NoModel)
        text = tr("Load a model first: the API serves the model the chat uses.");
    m_message->setText(text);
    m_offeredPort = freePort;
    if (freePort > 0) {
        m_usePort->setText(tr("Use Port %1").arg(freePort));
        m_usePort->show();
    }
}

void ApiDialog::onStatus(const shoehorn::ApiStatus &status)
{
    m_url->setText(m_api->baseUrl() + QStringLiteral("/v1"));
    const QString requests = status.refused
                                 ? tr("Requests: %1, of them refused: %2 (no or a wrong key, or a page of another site)")
                                       .arg(qulonglong(status.requests))
                                       .arg(qulonglong(status.refused))
                                 : tr("Requests: %1").arg(qulonglong(status.requests));
    // While auto-tune measures, the model is not there for requests: say so, not just "503".
    m_requests->setText(status.unavailable.empty()
                            ? requests
                            : tr("Paused while auto-tune measures the model: requests get 503 with Retry-After "
                                 "until it ends.") +
                                  QLatin1Char('\n') + requests);
    m_slots->setRowCount(int(status.slotStates.size()));
    for (int i = 0; i < int(status.slotStates.size()); ++i) {
        const auto &s = status.slotStates[size_t(i)];
        const QStringList cells{QString::number(s.id), s.busy ? tr("busy") : tr("idle"),
                                QString::number(s.generatedTokens),
                                s.busy ? QString::number(s.tokensPerSecond, 'f', 1) : QStringLiteral("–")};
        for (int col = 0; col < cells.size(); ++col)
            m_slots->setItem(i, col, new QTableWidgetItem(cells[col]));
    }
    QStringList errors;
    for (const auto &e : status.lastErrors)
        errors << QString::fromStdString(e);
    if (m_errors->toPlainText() != errors.join('\n'))
        m_errors->setPlainText(errors.isEmpty() ? QString() : errors.join('\n'));
}

void ApiDialog::refreshExamples()
{
    if (m_api->state() != State::On) {
        const QString off = tr("Start the API to get examples with its address and key.");
        m_curl->setPlainText(off);
        m_python->setPlainText(off);
        m_javascript->setPlainText(off);
        return;
    }
    m_curl->setPlainText(m_api->curlExample());
    m_python->setPlainText(m_api->pythonExample());
    m_javascript->setPlainText(m_api->javascriptExample());
}

// Loud when the API is opened wider than this computer's own programs with the key.
void ApiDialog::refreshExposure()
{
    ApiConfig c = configFromFields();
    const QStringList open = ApiController::exposures(c);
    m_exposure->setVisible(!open.isEmpty());
    m_exposure->setText(open.isEmpty() ? QString() : tr("Open wider than this computer: %1.").arg(open.join(QStringLiteral("; "))));
}

void ApiDialog::copy(const QString &text)
{
    if (m_copy)
        m_copy(text);
}
