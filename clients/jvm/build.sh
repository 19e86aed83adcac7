#!/bin/sh
# Builds the JVM client with the JDK alone (javac --release 11) into build/campaign-mock-client.jar, then,
# with `test`, runs its JUnit 5 tests against a live campaign-mock (CAMPAIGN_MOCK_BINARY) with Debian's
# junit5 jars (/usr/share/java, or JUNIT_JARS). No network: nothing is downloaded.
set -eu
cd "$(dirname "$0")"
JUNIT_JARS="${JUNIT_JARS:-/usr/share/java}"
API="$JUNIT_JARS/junit-jupiter-api.jar:$JUNIT_JARS/apiguardian-api.jar:$JUNIT_JARS/opentest4j.jar"
rm -rf build
mkdir -p build/classes build/test-classes
# shellcheck disable=SC2046 # the sources' paths have no spaces
javac --release 11 -Xlint:all -Werror -d build/classes -cp "$API" $(find src/main -name '*.java')
jar --create --file build/campaign-mock-client.jar -C build/classes .
echo "==> built clients/jvm/build/campaign-mock-client.jar"
[ "${1:-}" = test ] || exit 0
# shellcheck disable=SC2046 # the sources' paths have no spaces
javac --release 11 -Xlint:all -d build/test-classes -cp "build/classes:$API" $(find src/test -name '*.java')
exec java -jar "$JUNIT_JARS/junit-platform-console-standalone.jar" --disable-banner --fail-if-no-tests \
    --class-path "build/classes:build/test-classes" --select-package campaignmock.client
