// A sample of app/ code for tests/check_no_nested_loops.cmake: processEvents() is found (1);
// QSqlQuery::exec is not a loop and is not. Not compiled.
void sample(QSqlQuery &q)
{
    q.exec();
    QCoreApplication::processEvents();
}
