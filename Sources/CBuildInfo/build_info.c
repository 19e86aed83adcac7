#include "build_info.h"

/* Package.swift defines CAMPAIGN_MOCK_COMMIT for this file alone, as bare hex digits: only this file
   is compiled again when the commit changes. */
#define CBUILDINFO_STRING(x) #x
#define CBUILDINFO_EXPANDED_STRING(x) CBUILDINFO_STRING(x)

const char *campaign_mock_build_commit(void) {
#ifdef CAMPAIGN_MOCK_COMMIT
    return CBUILDINFO_EXPANDED_STRING(CAMPAIGN_MOCK_COMMIT);
#else
    return "";
#endif
}
