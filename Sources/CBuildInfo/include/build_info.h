#ifndef CBUILDINFO_BUILD_INFO_H
#define CBUILDINFO_BUILD_INFO_H

/* The git commit this binary was built from: CAMPAIGN_MOCK_COMMIT in the environment of the build (the
   Makefile sets it), or "" when the build was not told. */
const char *campaign_mock_build_commit(void);

#endif
