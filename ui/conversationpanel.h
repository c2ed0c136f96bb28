#pragma once

#include <QDockWidget>

class ChatController;
class LoadedModel;
class QCheckBox;
class QComboBox;
class QFormLayout;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

// The open chat's settings: its system prompt (with a per-model default), the sampling
// preset and values, and whether the model should think first. Changes apply to the next
// answer and are stored with the chat and the model.
class ConversationPanel : public QDockWidget
{
    Q_OBJECT
public:
    ConversationPanel(LoadedModel *model, ChatController *controller, QWidget *parent = nullptr);

    // Selects a preset by its index in the combo box, as a person would.
    void choosePreset(int index);
    QComboBox *presetBox() const { return m_preset; }

public slots:
    void refresh(); // from the controller's current chat and model

private:
    bool canSwitchThinking() const;
    QFormLayout *buildSamplingForm(QWidget *body);
    void connectWidgets();
    void applyValues();
    void applySystemPrompt();
    void saveDefaultPrompt();
    void useModelSuggestion();
    void updatePresetBox();

    LoadedModel *m_model;
    ChatController *m_controller;
    QPlainTextEdit *m_prompt;
    QPushButton *m_saveDefault;
    QComboBox *m_preset;
    QDoubleSpinBox *m_temperature;
    QDoubleSpinBox *m_topP;
    QSpinBox *m_topK;
    QDoubleSpinBox *m_minP;
    QDoubleSpinBox *m_presence;
    QDoubleSpinBox *m_repeat;
    QSpinBox *m_maxTokens;
    QCheckBox *m_thinking;
    QLabel *m_suggestion;
    QPushButton *m_useSuggestion;
    QTimer *m_promptTimer;
    bool m_updating = false;
};
