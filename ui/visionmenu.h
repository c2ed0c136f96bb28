#pragma once

#include <QMenu>

#include <functional>

class LoadedModel;
class VisionController;

// Model > Vision Projector: which mmproj file the loaded model reads images with (automatic:
// the best one beside it; a file beside it; another file; none), and whether it runs on the
// CPU. Remembered per model; applied at once, without reloading the model.
class VisionMenu : public QMenu
{
    Q_OBJECT
public:
    // Calls back with the chosen file (empty: cancelled); does not block.
    using FileChooser = std::function<void(QWidget *parent, std::function<void(const QString &path)> done)>;
    VisionMenu(LoadedModel *model, VisionController *vision, QWidget *parent = nullptr);
    void setFileChooser(FileChooser chooser) { m_choose = std::move(chooser); } // seam for tests
    void rebuild(); // what aboutToShow does (tests call it)

private:
    LoadedModel *m_model;
    VisionController *m_vision;
    FileChooser m_choose;
};
