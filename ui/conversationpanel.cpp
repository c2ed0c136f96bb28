#include "conversationpanel.h"

#include "panelscroll.h"

#include "chatcontroller.h"
#include "loadedmodel.h"
#include "samplingpresets.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTimer>
#include <QVBoxLayout>

namespace {
QDoubleSpinBox *spin(QWidget *parent, double min, double max, double step, int decimals)
{
    auto *s = new QDoubleSpinBox(parent);
    // A value counts when typed out (Enter, Tab, focus elsewhere) or stepped: "0.95" typed key by
    // key is not 0, then 0.9, then 0.95, each written back into the box under the cursor.
    s->setKeyboardTracking(false);
    s->setRange(min, max);
    s->setSingleStep(step);
    s->setDecimals(decimals);
    return s;
}
} // namespace

ConversationPanel::ConversationPanel(LoadedModel *model, ChatController *controller, QWidget *parent)
    : QDockWidget(tr("Conversation"), parent), m_model(model), m_controller(controller), m_promptTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("conversationPanel"));
    auto *body = new QWidget(this);
    auto *layout = new QVBoxLayout(body);

    layout->addWidget(new QLabel(tr("System prompt"), body));
    m_prompt = new QPlainTextEdit(body);
    m_prompt->setObjectName(QStringLiteral("systemPrompt"));
    m_prompt->setPlaceholderText(tr("How the assistant should behave in this chat (optional)"));
    m_prompt->setMaximumHeight(120);
    layout->addWidget(m_prompt);
    m_saveDefault = new QPushButton(tr("Use for new chats with this model"), body);
    m_saveDefault->setObjectName(QStringLiteral("saveDefaultPrompt"));
    layout->addWidget(m_saveDefault);
    layout->addLayout(buildSamplingForm(body));
    m_thinking = new QCheckBox(tr("Let the model think before answering"), body);
    m_thinking->setObjectName(QStringLiteral("enableThinking"));
    layout->addWidget(m_thinking);
    m_suggestion = new QLabel(body);
    m_suggestion->setWordWrap(true);
    m_suggestion->setObjectName(QStringLiteral("modelSuggestion"));
    layout->addWidget(m_suggestion);
    m_useSuggestion = new QPushButton(tr("Use the model's suggestion"), body);
    layout->addWidget(m_useSuggestion);
    layout->addStretch(1);
    setWidget(PanelScroll::create(body, this));
    connectWidgets();
    refresh();
}

QFormLayout *ConversationPanel::buildSamplingForm(QWidget *body)
{
    auto *form = new QFormLayout;
    m_preset = new QComboBox(body);
    m_preset->setObjectName(QStringLiteral("samplingPreset"));
    m_preset->addItem(tr("Thinking – general"), int(SamplingPresets::Id::ThinkingGeneral));
    m_preset->addItem(tr("Thinking – coding"), int(SamplingPresets::Id::ThinkingCoding));
    m_preset->addItem(tr("Instruct – general"), int(SamplingPresets::Id::InstructGeneral));
    m_preset->addItem(tr("Instruct – reasoning"), int(SamplingPresets::Id::InstructReasoning));
    m_preset->addItem(tr("Model's suggestion"), int(SamplingPresets::Id::ModelDefaults));
    m_preset->addItem(tr("Custom"), int(SamplingPresets::Id::Custom));
    form->addRow(tr("Preset"), m_preset);
    m_temperature = spin(body, 0, 2, 0.05, 2);
    m_temperature->setObjectName(QStringLiteral("temperature"));
    form->addRow(tr("Temperature"), m_temperature);
    m_topP = spin(body, 0, 1, 0.05, 2);
    m_topP->setObjectName(QStringLiteral("topP"));
    form->addRow(tr("Top-p"), m_topP);
    m_topK = new QSpinBox(body);
    m_topK->setKeyboardTracking(false);
    m_topK->setRange(0, 1000);
    m_topK->setSpecialValueText(tr("off"));
    m_topK->setObjectName(QStringLiteral("topK"));
    form->addRow(tr("Top-k"), m_topK);
    m_minP = spin(body, 0, 1, 0.01, 2);
    m_minP->setObjectName(QStringLiteral("minP"));
    form->addRow(tr("Min-p"), m_minP);
    m_presence = spin(body, 0, 2, 0.1, 2);
    m_presence->setObjectName(QStringLiteral("presencePenalty"));
    form->addRow(tr("Presence penalty"), m_presence);
    m_repeat = spin(body, 1, 2, 0.05, 2);
    form->addRow(tr("Repeat penalty"), m_repeat);
    m_maxTokens = new QSpinBox(body);
    m_maxTokens->setKeyboardTracking(false);
    m_maxTokens->setRange(-1, 262144);
    m_maxTokens->setSpecialValueText(tr("no limit"));
    m_maxTokens->setSingleStep(256);
    form->addRow(tr("Answer length limit"), m_maxTokens);
    return form;
}

void ConversationPanel::connectWidgets()
{
    m_promptTimer->setSingleShot(true);
    m_promptTimer->setInterval(400);
    connect(m_promptTimer, &QTimer::timeout, this, &ConversationPanel::applySystemPrompt);
    connect(m_prompt, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_updating)
            m_promptTimer->start();
    });
    connect(m_saveDefault, &QPushButton::clicked, this, &ConversationPanel::saveDefaultPrompt);
    connect(m_preset, &QComboBox::activated, this, &ConversationPanel::choosePreset);
    for (QDoubleSpinBox *s : {m_temperature, m_topP, m_minP, m_presence, m_repeat})
        connect(s, &QDoubleSpinBox::valueChanged, this, &ConversationPanel::applyValues);
    for (QSpinBox *s : {m_topK, m_maxTokens})
        connect(s, &QSpinBox::valueChanged, this, &ConversationPanel::applyValues);
    connect(m_thinking, &QCheckBox::toggled, this, &ConversationPanel::applyValues);
    connect(m_useSuggestion, &QPushButton::clicked, this, &ConversationPanel::useModelSuggestion);
    connect(m_controller, &ChatController::conversationChanged, this, &ConversationPanel::refresh);
    connect(m_model, &LoadedModel::modelSettingsChanged, this, &ConversationPanel::refresh);
    connect(m_model, &LoadedModel::modelLoaded, this, &ConversationPanel::refresh);
}

// Without a model the box is the setting for the next one; with one, only where its template
// has the switch (not read back from the box: a disabled parent would disable it too).
bool ConversationPanel::canSwitchThinking() const
{
    return !m_model->hasModel() || m_model->model().supportsThinking;
}

void ConversationPanel::refresh()
{
    if (m_updating) // this panel's own edit coming back: the boxes hold it already
        return;
    m_updating = true;
    if (m_prompt->toPlainText() != m_controller->systemPrompt())
        m_prompt->setPlainText(m_controller->systemPrompt());
    const auto o = m_controller->generationOptions();
    m_temperature->setValue(o.sampling.temperature);
    m_topP->setValue(o.sampling.topP);
    m_topK->setValue(o.sampling.topK);
    m_minP->setValue(o.sampling.minP);
    m_presence->setValue(o.sampling.presencePenalty);
    m_repeat->setValue(o.sampling.repeatPenalty);
    m_maxTokens->setValue(o.maxTokens < 0 ? -1 : o.maxTokens);
    const bool loaded = m_model->hasModel();
    const ModelSummary &m = m_model->model();
    // A template without the switch neither thinks on request nor stops: the box shows off,
    // greyed, and the stored choice stays for models that have it (applyValues keeps it).
    const bool canThink = canSwitchThinking();
    m_thinking->setEnabled(canThink);
    m_thinking->setChecked(o.enableThinking && canThink);
    m_thinking->setToolTip(loaded && !m.supportsThinking ? tr("This model's chat template has no thinking switch.")
                                                         : QString());
    m_saveDefault->setEnabled(loaded);
    const bool suggests = loaded && m.hasSuggestedSampling;
    if (suggests)
        m_suggestion->setText(tr("This model suggests: temperature %1 · top-p %2 · top-k %3 · min-p %4")
                                  .arg(m.suggestedSampling.temperature)
                                  .arg(m.suggestedSampling.topP)
                                  .arg(m.suggestedSampling.topK)
                                  .arg(m.suggestedSampling.minP));
    m_suggestion->setVisible(suggests);
    m_useSuggestion->setVisible(suggests);
    updatePresetBox();
    m_updating = false;
}

void ConversationPanel::updatePresetBox()
{
    const auto o = m_controller->generationOptions();
    int id = int(SamplingPresets::match(o.sampling, o.enableThinking));
    const ModelSummary &m = m_model->model();
    if (id == int(SamplingPresets::Id::Custom) && m_model->hasModel() && m.hasSuggestedSampling &&
        m.suggestedSampling == o.sampling)
        id = int(SamplingPresets::Id::ModelDefaults);
    m_preset->setCurrentIndex(m_preset->findData(id));
    // "Model's suggestion" is offered only when the GGUF carries one.
    const int modelRow = m_preset->findData(int(SamplingPresets::Id::ModelDefaults));
    if (auto *view = qobject_cast<QStandardItemModel *>(m_preset->model()); view && modelRow >= 0)
        view->item(modelRow)->setEnabled(m_model->hasModel() && m.hasSuggestedSampling);
}

void ConversationPanel::choosePreset(int index)
{
    const auto id = SamplingPresets::Id(m_preset->itemData(index).toInt());
    ModelSettings s = m_model->modelSettings();
    if (id == SamplingPresets::Id::ModelDefaults) {
        if (!m_model->model().hasSuggestedSampling)
            return;
        s.generation.sampling = m_model->model().suggestedSampling;
    } else if (id != SamplingPresets::Id::Custom) {
        for (const auto &p : SamplingPresets::fixedPresets())
            if (p.id == id)
                s.generation.sampling = p.sampling;
        // The presets are for thinking or instruct use: the switch follows.
        s.generation.enableThinking = id == SamplingPresets::Id::ThinkingGeneral || id == SamplingPresets::Id::ThinkingCoding;
    } else {
        m_preset->setCurrentIndex(index);
        return;
    }
    m_model->setModelSettings(s);
    refresh();
    m_preset->setCurrentIndex(index);
}

void ConversationPanel::applyValues()
{
    if (m_updating)
        return;
    ModelSettings s = m_model->modelSettings();
    auto &sm = s.generation.sampling;
    sm.temperature = float(m_temperature->value());
    sm.topP = float(m_topP->value());
    sm.topK = m_topK->value();
    sm.minP = float(m_minP->value());
    sm.presencePenalty = float(m_presence->value());
    sm.repeatPenalty = float(m_repeat->value());
    s.generation.maxTokens = m_maxTokens->value();
    if (canSwitchThinking())
        s.generation.enableThinking = m_thinking->isChecked();
    m_updating = true;
    m_model->setModelSettings(s);
    m_updating = false;
    updatePresetBox();
}

void ConversationPanel::applySystemPrompt()
{
    m_controller->setSystemPrompt(m_prompt->toPlainText().trimmed());
}

void ConversationPanel::saveDefaultPrompt()
{
    applySystemPrompt();
    if (m_model->hasModel())
        m_model->setDefaultSystemPrompt(m_model->model().path, m_controller->systemPrompt());
}

void ConversationPanel::useModelSuggestion()
{
    choosePreset(m_preset->findData(int(SamplingPresets::Id::ModelDefaults)));
}
