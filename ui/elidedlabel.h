#pragma once

#include <QLabel>

// A one-line label that never widens its parent: the text is cut with "…" to the width it gets,
// and the whole text is its tooltip (and text()'s caller asks fullText()).
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget *parent = nullptr);
    void setFullText(const QString &text);
    QString fullText() const { return m_full; }
    bool isElided() const { return text() != m_full; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void elide();
    QString m_full;
};
