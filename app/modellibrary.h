#pragma once

#include "hardware.h"
#include "modelinfo.h"
#include "visioncontroller.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QStringList>

#include <memory>
#include <optional>

// The models Shoehorn knows: the ones opened before, files offered by a second launch or a
// preset import, and GGUF files found in the folders the user chose. A table with what a
// person picks a model by, including whether it fits the machine being planned for.
// GUI thread only; folders are scanned and files inspected on a worker thread.
class ModelLibrary : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, ArchitectureColumn, ParametersColumn, QuantColumn, SizeColumn, ContextColumn,
                  ImagesColumn, FitColumn, ColumnCount };
    enum Roles {
        PathRole = Qt::UserRole + 1,
        OfferedRole,
        ExistsRole,
        FitRole,     // FitVerdict
        LoadingRole, // the load's progress 0..1 while this model is being opened, else invalid
    };
    enum class FitVerdict { Unknown, OnGpu, GpuAndRam, CpuOnly, TooBig };
    Q_ENUM(FitVerdict)

    explicit ModelLibrary(QObject *parent = nullptr);
    ~ModelLibrary() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;
    using QAbstractTableModel::index;
    QModelIndex index(int row) const { return QAbstractTableModel::index(row, NameColumn); }

    // A model was opened: move it to the top, no longer just offered.
    void addRecent(const QString &path);
    // The remembered settings of the model at `path` changed (its projector choice shows here).
    void settingsChanged(const QString &path);
    // A model is being opened: listed at once, at the top, with its progress (LoadingRole) until
    // loadEnded(): loaded, it stays as a recent model; not loaded, a row added only for the load
    // goes again.
    void loadStarted(const QString &path);
    void loadProgress(double fraction);
    void loadEnded(bool loaded);
    QString loadingPath() const { return m_loading; }
    // Files to suggest without opening them now.
    void offer(const QStringList &paths);
    void remove(int row);
    QString pathAt(int row) const;
    int indexOf(const QString &path) const;

    QStringList folders() const { return m_folders; }
    void addFolder(const QString &folder);
    void removeFolder(const QString &folder);
    // Looks at the folders again and inspects files not inspected yet (in the background).
    void rescan();
    // Looks whether each listed file is still there (on the pool: a file on a share that does not
    // answer would hold the GUI thread). ExistsRole gives what the last look found; a scan, a new
    // row and the window becoming active again look.
    void checkFiles();
    bool isCheckingFiles() const { return m_checking.isRunning(); }
    bool isScanning() const;
    // The machine the Fit column is about.
    void setTarget(const shoehorn::PlanTarget &target);

    static constexpr int kMaxEntries = 30;
    // What a quantization name means, in a sentence or two (Q4_K_M, UD-Q4_K_XL, IQ4_NL...).
    static QString quantDescription(const QString &name);

signals:
    void scanFinished();
    // The Fit column is worked out for the target now set (on the pool, after setTarget or a scan).
    void fitsUpdated();

private:
    struct Entry {
        QString path;
        bool offered = false;
        bool fromFolder = false;
        std::shared_ptr<const shoehorn::ModelInfo> info;
        shoehorn::Error error; // why the file could not be read (its tooltip shows the engine's words)
        FitVerdict fit = FitVerdict::Unknown;
        QList<VisionController::Candidate> projectors = {}; // mmproj files beside it
        bool missing = false; // not there at the last look (checkFiles)
        // The model's remembered projector choice, read once (not on every paint of the list):
        // settingsChanged() or a new entry reads it again.
        mutable std::optional<QString> projectorChoice = {};
    };
    struct Scan {
        QStringList found;
        QList<QPair<QString, std::shared_ptr<const shoehorn::ModelInfo>>> inspected;
        QList<QPair<QString, shoehorn::Error>> failed; // path, why
        QHash<QString, QList<VisionController::Candidate>> projectors;
    };
    // "F16" for the projector this model uses (its setting, else the best one beside it),
    // "off" when turned off, empty when it has none.
    QString visionText(const Entry &e) const;
    static Scan scan(const QStringList &folders, const QStringList &toInspect);
    void applyScan();
    void insertTop(Entry e);
    // The fit verdicts of every inspected entry for m_target, worked out on the pool: auto-fit
    // takes under a millisecond for a model that fits and about 150 ms for one that fits nowhere
    // (it tries every placement), per model, at every change of the target.
    using Verdicts = QHash<QString, FitVerdict>;
    void refit();
    void applyFits();
    static FitVerdict verdict(const shoehorn::ModelInfo &info, const shoehorn::PlanTarget &target);
    void save() const;
    void applyChecks();

    QList<Entry> m_entries;
    QStringList m_folders;
    shoehorn::PlanTarget m_target;
    bool m_hasTarget = false;
    QFutureWatcher<Scan> m_watcher;
    bool m_rescanAgain = false;
    QFutureWatcher<Verdicts> m_fitting;
    bool m_refitAgain = false; // the target or the entries changed while it ran
    QFutureWatcher<QStringList> m_checking; // the paths not there
    bool m_checkAgain = false;
    QString m_loading;
    double m_loadFraction = 0;
    bool m_loadingAdded = false; // the row is there only for the load in progress
};
