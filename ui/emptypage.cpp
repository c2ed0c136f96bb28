#include "emptypage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

EmptyPage::EmptyPage(QWidget *parent) : QWidget(parent)
{
    auto *empty = new QVBoxLayout(this);
    empty->addStretch(2);
    auto *hint = new QLabel(tr("Drop a .gguf model here or choose a model file"), this);
    hint->setObjectName(QStringLiteral("emptyHint"));
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true); // a narrow window (or a longer translation) wraps it
    QFont big = hint->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    hint->setFont(big);
    auto *sub = new QLabel(tr("Shoehorn runs GGUF models locally with llama.cpp, split between GPU and CPU."), this);
    sub->setAlignment(Qt::AlignCenter);
    sub->setWordWrap(true);
    auto *open = new QPushButton(tr("Choose a model…"), this);
    open->setObjectName(QStringLiteral("openModelButton"));
    connect(open, &QPushButton::clicked, this, &EmptyPage::openRequested);
    empty->addWidget(hint);
    empty->addWidget(sub);
    auto *row = new QHBoxLayout;
    row->addStretch();
    row->addWidget(open);
    row->addStretch();
    empty->addLayout(row);
    empty->addStretch(3);
}
