#pragma once

class QThreadPool;

// Where Shoehorn's own work off the GUI thread runs: reading files and pictures, SQLite, probes.
// Not Qt's global pool: Qt's raster painting and image conversions split their work over the
// global pool and the GUI thread waits for the pieces, so a picture decoding there for 300 ms
// held the window's painting for as long (88 ms measured while a photo was being stored, #31).
// Use it with QtConcurrent::run(workPool(), ...).
QThreadPool *workPool();

// Files the user asked to be written (an exported chat): not on the work pool, whose jobs not
// yet started are dropped at quit, but here, where each one is written before the process ends.
QThreadPool *writePool();
