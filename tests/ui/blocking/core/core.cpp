// A sample of app/ code for tests/check_no_nested_loops.cmake: processEvents() is found (1), and
// Qt's global pool (2, 3, 4); QSqlQuery::exec is not a loop, workPool() is Shoehorn's pool: neither is.
// Not compiled.
void sample(QSqlQuery &q)
{
    q.exec();
    QCoreApplication::processEvents();
    QtConcurrent::run([] {});
    QThreadPool::globalInstance()->start([] {});
    QtConcurrent::run(workPool(), [] {});
    QtConcurrent::mapped(list, f);
}
