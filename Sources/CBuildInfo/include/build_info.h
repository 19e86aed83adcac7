#ifndef CBUILDINFO_BUILD_INFO_H
#define CBUILDINFO_BUILD_INFO_H

/* The git commit this binary was built from, as Package.swift found it (or CAMPAIGN_MOCK_COMMIT in the
   environment of the build); "" when it was built outside a git checkout. */
const char *campaign_mock_build_commit(void);

#endif
