# Nothing in the window's code runs a nested event loop: Qt's static dialog helpers
# (QMessageBox::warning and friends, QFileDialog::get*, QInputDialog::get*, QColorDialog::getColor,
# QFontDialog::getFont), exec() of a dialog or a menu, a local QEventLoop and processEvents() all
# run events (a finished answer, a load, a timer) under the caller's feet. ui/AsyncDialogs opens
# dialogs window-modal with a callback instead. UI_DIR (widgets) gets every check; CORE_DIR
# (app/: Qt without widgets, so no dialog or menu can be there, and its QSqlQuery::exec is no
# loop) the event-loop ones, main.cpp's app.exec() being the one loop.
# Both dirs: work off the GUI thread goes to workPool(), not Qt's global pool (a QtConcurrent call
# without a pool, QThreadPool::globalInstance(), a continuation launched Async): Qt's painting
# splits its work over the global pool and the GUI thread waits for the pieces, behind whatever
# runs there. Line by line: a call whose pool is on the next line counts as a problem too.
# Usage: cmake -DUI_DIR=ui -DCORE_DIR=app -P check_no_nested_loops.cmake
set(problems 0)
set(count 0)
foreach(dir IN ITEMS "${UI_DIR}" "${CORE_DIR}")
    file(GLOB sources "${dir}/*.cpp" "${dir}/*.h")
    foreach(source IN LISTS sources)
        math(EXPR count "${count} + 1")
        file(STRINGS "${source}" lines)
        set(n 0)
        foreach(line IN LISTS lines)
            math(EXPR n "${n} + 1")
            string(REGEX REPLACE "//.*$" "" code "${line}")
            set(bad "")
            if(code MATCHES "QEventLoop|processEvents[ \t]*\\(")
                set(bad "a local event loop")
            elseif(code MATCHES "QThreadPool::globalInstance|QtFuture::Launch::Async|QtConcurrent::[A-Za-z]+[ \t]*\\([ \t]*$" OR
                   (code MATCHES "QtConcurrent::[A-Za-z]+[ \t]*\\(" AND NOT code MATCHES "QtConcurrent::[A-Za-z]+[ \t]*\\([ \t]*(workPool|writePool|&writer)\\(\\)"))
                set(bad "Qt's global thread pool (the GUI thread's painting waits on it): use workPool() (writePool() for exports)")
            elseif(dir STREQUAL UI_DIR AND code MATCHES "QMessageBox::(warning|information|question|critical|about|aboutQt)[ \t]*\\(")
                set(bad "a static QMessageBox helper (it runs exec())")
            elseif(dir STREQUAL UI_DIR AND code MATCHES "Q(File|Input|Color|Font)Dialog::get[A-Za-z]*[ \t]*\\(")
                set(bad "a static dialog helper (it runs exec())")
            elseif(dir STREQUAL UI_DIR AND code MATCHES "(\\.|->)exec[ \t]*\\(")
                set(bad "exec() of a dialog or a menu")
            endif()
            if(bad)
                message(NOTICE "${source}:${n}: ${bad}: ${line}")
                math(EXPR problems "${problems} + 1")
            endif()
        endforeach()
    endforeach()
endforeach()
if(count EQUAL 0)
    message(FATAL_ERROR "no sources found under ${UI_DIR} and ${CORE_DIR}")
endif()
if(problems GREATER 0)
    message(FATAL_ERROR "nested event loops or GUI-thread waits in the window's code (${problems} problems)")
endif()
message(STATUS "${count} files, no nested event loop")
