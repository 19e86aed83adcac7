#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type CSQLite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics (every
/// allocation and free takes a process-wide mutex to count them); only valid before SQLite initializes.
static inline int CSQLite_disableMemoryStatistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
