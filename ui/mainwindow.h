#pragma once

#include "loadedmodel.h"
#include "windowparts.h"

#include <QMainWindow>

#include <functional>

class ApiDialog;
class RemoteMachinesDialog;
class AttachmentStrip;
struct ChatImage;
class ChatController;
class ChatList;
class Composer;
class ConversationPanel;
class ChatView;
class ModelBrowser;
class ModelLibrary;
class OffloadPanel;
class LoadStrip;
class MessageInput;
class QLabel;
class QMenu;
class StatusStrip;
class QStackedWidget;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // The app core's objects the window works with (built and owned there, AppCore::windowParts()):
    // it hands each widget the ones it uses.
    explicit MainWindow(const WindowParts &parts, QWidget *parent = nullptr);

    // Seams for tests: how errors are shown and how a file is chosen.
    using ErrorPresenter = std::function<void(const QString &title, const QString &text)>;
    void setErrorPresenter(ErrorPresenter presenter) { m_showError = std::move(presenter); }
    // Choosers answer through `done` (an empty path: cancelled); none blocks (AsyncDialogs).
    using FileChooser = std::function<void(std::function<void(const QString &path)> done)>;
    void setFileChooser(FileChooser chooser) { m_chooseFile = std::move(chooser); }
    void setPresetChooser(FileChooser chooser) { m_choosePresets = std::move(chooser); }
    void setChatChooser(FileChooser chooser) { m_chooseChat = std::move(chooser); } // Import Chat
    void setInfoPresenter(ErrorPresenter presenter) { m_showInfo = std::move(presenter); }
    // Where to save an export: (suggested name, filter) -> the path, empty to cancel.
    using SaveChooser = std::function<void(const QString &suggested, const QString &filter,
                                           std::function<void(const QString &path)> done)>;
    void setSaveChooser(SaveChooser chooser) { m_chooseSave = std::move(chooser); }
    // The chat's model file is gone: the new path the user points to, empty to leave it.
    // Asks where the model went; calls back with the file (empty: the user cancelled). Without a
    // nested event loop: the window goes on meanwhile.
    using LocateChooser = std::function<void(const QString &missingPath, std::function<void(const QString &found)>)>;
    void setLocateChooser(LocateChooser chooser) { m_locate = std::move(chooser); }
    // Asked when Stop has no effect for a while; `done(true)`: quit. Test seam like the others.
    using QuitAsker = std::function<void(const QString &text, std::function<void(bool quit)> done)>;
    void setQuitAsker(QuitAsker asker) { m_askQuit = std::move(asker); }
    static constexpr int kStopGraceMs = 3000;
    ChatView *chatView() const { return m_view; }
    MessageInput *messageInput() const;
    AttachmentStrip *attachments() const;
    ConversationPanel *conversationPanel() const { return m_conversation; }
    int editingRow() const;
    OffloadPanel *offloadPanel() const { return m_offload; }
    ChatList *chatList() const { return m_chats; }
    ApiDialog *apiDialog() const { return m_apiDialog; } // null until first shown
    RemoteMachinesDialog *remoteMachinesDialog() const { return m_remoteDialog; } // null until first shown

    static bool isModelFile(const QString &path);
    // The first start's size and dock widths for a screen's available area.
    void fitInto(const QRect &available);
    ModelLibrary *modelLibrary() const { return m_library; }

public slots:
    void openModelDialog();
    void openModel(const QString &path);
    // From a second launch: open the first, offer the rest in the model browser, come to front.
    void openFiles(const QStringList &paths);
    // File > Import llama-server presets: per-model settings from a --models-preset INI file.
    void importPresets();
    void importPresetFile(const QString &path);
    // File > Export Chat: the open chat as Markdown (.md) or JSON (.json), by the name's ending.
    // The file is written on the work pool (pictures are megabytes of base64); the status bar
    // says when it is, the error presenter why not.
    void exportChat();
    void exportChatTo(const QString &path);
    // File > Import Chat: a chat exported as JSON (by Shoehorn, here or elsewhere), read and
    // stored on the pool, then opened; the error presenter says why not.
    void importChat();
    void importChatFile(const QString &path);
    // Serve > Local API: the dialog (one, not modal: it shows live slots while the chat runs).
    void showApiDialog();

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    // The window active again (the user may have moved or deleted model files meanwhile): the
    // Models list looks whether its files are still there.
    void changeEvent(QEvent *event) override;

private:
    void installDialogs();
    void showNote(const QString &text);
    void connectController();
    void buildUi();
    void buildChatPage();
    void buildDocks();
    void buildMenus();
    void onStateChanged(LoadedModel::State state);
    void onModelLoaded(const ModelSummary &summary);
    void onLoadFailed(const shoehorn::Error &error);
    void showImage(const ChatImage &image);
    void stopAnswer(); // Stop, and if the answer does not end, say so and offer to quit
    void offerLocate(const QString &missingPath);

    WindowParts m_parts;
    LoadedModel *m_model;
    ChatController *m_controller;
    bool m_storageWarned = false;
    int m_stopRequests = 0;
    ModelLibrary *m_library = nullptr;
    ModelBrowser *m_browser = nullptr;
    ChatList *m_chats = nullptr;
    OffloadPanel *m_offload = nullptr;
    QStackedWidget *m_pages = nullptr;
    QWidget *m_emptyPage = nullptr;
    QWidget *m_chatPage = nullptr;
    ChatView *m_view = nullptr;
    Composer *m_composer = nullptr;
    ConversationPanel *m_conversation = nullptr;
    LoadStrip *m_loadStrip = nullptr;
    StatusStrip *m_status = nullptr;
    ApiDialog *m_apiDialog = nullptr;
    RemoteMachinesDialog *m_remoteDialog = nullptr;
    QLabel *m_apiIndicator = nullptr;
    ErrorPresenter m_showError;
    FileChooser m_chooseFile;
    FileChooser m_choosePresets;
    FileChooser m_chooseChat;
    ErrorPresenter m_showInfo;
    SaveChooser m_chooseSave;
    LocateChooser m_locate;
    QuitAsker m_askQuit;
};
