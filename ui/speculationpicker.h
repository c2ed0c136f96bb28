#pragma once

#include "settings.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;

// The per-model choice of speculative decoding: Off, Auto (what auto-tune measured fastest), the
// model's own MTP layer, n-gram lookup in the conversation, or a draft model file (a smaller
// model of the same family). What it means is llama.cpp's --spec-type (draft-mtp,
// ngram-simple, draft-simple with -md).
class SpeculationPicker : public QWidget
{
    Q_OBJECT
public:
    enum Choice { Off, Auto, Mtp, NGram, DraftModel };

    explicit SpeculationPicker(QWidget *parent = nullptr);

    // MTP is offered only for a model with an MTP layer (the tooltip says why not).
    void setModelHasMtp(bool has);
    // The choice (Auto: off here; ModelSettings::speculationAuto says the rest).
    shoehorn::SpeculationSettings settings() const;
    void setSettings(const shoehorn::SpeculationSettings &s, bool automatic = false);
    bool isAuto() const { return choice() == Auto; }
    Choice choice() const;

    // Test seam: the file dialog that picks a draft model (calls back with the path, empty:
    // cancelled; it does not block).
    using FileChooser = std::function<void(std::function<void(const QString &path)> done)>;
    void setFileChooser(FileChooser chooser) { m_chooser = std::move(chooser); }

signals:
    void edited();

private:
    void chosen(int index);
    void takeDraft(const QString &path);
    void showDraft();

    QComboBox *m_combo = nullptr;
    QLabel *m_draft = nullptr;
    QString m_draftPath;
    Choice m_last = Off;
    bool m_updating = false;
    FileChooser m_chooser;
};
