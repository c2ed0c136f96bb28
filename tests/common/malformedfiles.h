#pragma once

// Malformed GGUF files of every kind llama.cpp would assert on or misread (limits, lengths and
// offsets, broken vocabularies, cut-off files), each made from a valid tiny fixture, with the
// error code and what its message must contain. One list for the inspector's test and for the
// paths a person takes (shoehorn-cli, the app's open path).

#include <QByteArray>
#include <QList>
#include <QString>

struct MalformedFile {
    QString kind;
    QByteArray bytes;
    int code;       // shoehorn::ErrorCode
    QString detail; // what the message must contain
};

QList<MalformedFile> malformedFiles();
// Files the inspector accepts that llama.cpp would abort on while loading their layout or
// building their compute graph: the first-open check's dry run (in its helper) refuses them.
QList<MalformedFile> dryRunFiles();
QByteArray readAll(const QString &path); // a test's file, whole (qFatal if it cannot)
// Writes `bytes` as the file `path` (replacing it); false if it cannot.
bool writeBytes(const QString &path, const QByteArray &bytes);
// The dry-run file whose message names `detail` (an assertion of llama.cpp's), written to `path`:
// a file llama.cpp aborts on that Shoehorn's own reader accepts. False if there is none.
bool writeDryRunFile(const QString &detail, const QString &path);
