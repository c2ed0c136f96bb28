#pragma once

#include <QComboBox>
#include <QStringList>

// The per-model choice of backend for cards two backends see (an NVIDIA card through CUDA and
// Vulkan): llama.cpp's default (the first) or another one. Hidden by its owner when no card is
// seen twice; the stored choice is kept meanwhile (a plan for a profile, a card taken out).
class BackendPicker : public QComboBox
{
    Q_OBJECT
public:
    struct Choice {
        QString backend;     // ggml's name: "CUDA", "Vulkan"
        QStringList devices; // what it gives the model: "Vulkan0 · NVIDIA GeForce RTX 3060"
    };

    explicit BackendPicker(QWidget *parent = nullptr);

    // The first choice is llama.cpp's default. Keeps the selection by name where it can.
    void setChoices(const QList<Choice> &choices);
    bool hasChoice() const { return count() > 1; }
    // "" for the default, else the backend's name (LoadSettings::backend).
    QString backend() const;
    void setBackend(const QString &backend);

signals:
    void edited();

private:
    QString m_wanted; // the stored choice, also while it is not offered
    bool m_updating = false;
};
