#!/bin/sh
# Builds the JVM client (docs/jvm-client.md) with Maven, offline, from Debian's Maven repository
# (/usr/share/maven-repo, or MAVEN_REPO; Debian's maven and libmaven-{compiler,jar,source,resources}-plugin-java
# packages, and libmaven-install-plugin-java for the repository folder build/m2), into build/, each jar with its sources jar and its pom (coordinates io.github.campaignmock:ARTIFACT:VERSION):
#   campaign-mock-client-VERSION.jar          the client: the JDK alone, Java 8 and Android API 24
#   campaign-mock-client-junit4-VERSION.jar   CampaignMockRule, for JUnit 4 (Android instrumented tests)
#   campaign-mock-client-junit5-VERSION.jar   CampaignMockExtension, for JUnit 5 (JVM tests)
# A JUnit module is built when its JUnit is in the repository (Debian's junit4 / junit5 packages); the client
# needs none. The client and the JUnit 4 rule are checked against Android API 24 (android-api-check.sh), and
# VERSION is the server's (Sources/CampaignMockModel/CampaignMockVersion.swift). With `test`, the tests of
# tests/ run against a live campaign-mock (CAMPAIGN_MOCK_BINARY) with Debian's JUnit jars (/usr/share/java,
# or JUNIT_JARS). No network: nothing is downloaded.
set -eu
cd "$(dirname "$0")"
MAVEN_REPO="${MAVEN_REPO:-/usr/share/maven-repo}"
JUNIT_JARS="${JUNIT_JARS:-/usr/share/java}"
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' ../../Sources/CampaignMockModel/CampaignMockVersion.swift)
grep -q "String VERSION = \"$version\";" campaign-mock-client/src/main/java/campaignmock/client/CampaignMockClient.java \
    || { echo "build.sh: CampaignMockClient.VERSION is not the server's version $version" >&2; exit 1; }

modules=campaign-mock-client
if [ -d "$MAVEN_REPO/junit/junit/4.13.2" ]; then modules="$modules,campaign-mock-client-junit4"
else echo "==> campaign-mock-client-junit4 left out: no junit:junit:4.13.2 in $MAVEN_REPO (Debian's junit4)"; fi
if [ -d "$MAVEN_REPO/org/junit/jupiter/junit-jupiter-api/5.9.2" ]; then modules="$modules,campaign-mock-client-junit5"
else echo "==> campaign-mock-client-junit5 left out: no junit-jupiter-api 5.9.2 in $MAVEN_REPO (Debian's junit5)"; fi
rm -rf build ./*/target
mkdir -p build
# Maven's output is shown when it fails (build/maven.log).
maven() {
    mvn --offline --batch-mode -Dmaven.repo.local="$MAVEN_REPO" "$@" >> build/maven.log 2>&1 \
        || { cat build/maven.log; echo "build.sh: mvn $* failed (its output is above)" >&2; exit 1; }
}
maven --projects "$modules" package
for module in $(echo "$modules" | tr , ' '); do
    [ -f "$module/target/$module-$version.jar" ] \
        || { echo "build.sh: $module/pom.xml's version is not the server's version $version" >&2; exit 1; }
    cp "$module/target/$module-$version.jar" "$module/target/$module-$version-sources.jar" build/
    cp "$module/pom.xml" "build/$module-$version.pom"
done
# The jars that go on Android: the client and the JUnit 4 rule.
if [ -f "build/campaign-mock-client-junit4-$version.jar" ]; then
    ./android-api-check.sh "build/campaign-mock-client-$version.jar" "build/campaign-mock-client-junit4-$version.jar"
else
    ./android-api-check.sh "build/campaign-mock-client-$version.jar"
fi
# A Maven repository folder of the built modules (build/m2, as docs/jvm-client.md says: one maven { url }
# line), and the same folder packed for a release (campaign-mock-jvm-maven-VERSION.tar.gz).
for artifact in $(echo "$modules" | tr , ' '); do
    maven -DlocalRepositoryPath=build/m2 install:install-file -Dfile="build/$artifact-$version.jar" \
        -Dsources="build/$artifact-$version-sources.jar" -DpomFile="build/$artifact-$version.pom"
    test -f "build/m2/io/github/campaignmock/$artifact/$version/$artifact-$version-sources.jar"
done
# Only the coordinates' own files: install:install-file also writes its resolver's bookkeeping.
find build/m2 -name '_remote.repositories' -delete
tar -czf "build/campaign-mock-jvm-maven-$version.tar.gz" -C build m2
echo "==> built in clients/jvm/build/ (modules $modules), with the Maven repository folder build/m2:"
ls build
[ "${1:-}" = test ] || exit 0

[ "$modules" = campaign-mock-client,campaign-mock-client-junit4,campaign-mock-client-junit5 ] \
    || { echo "build.sh test: needs Debian's junit4 and junit5 packages (only $modules was built)" >&2; exit 1; }
classpath="build/campaign-mock-client-$version.jar:build/campaign-mock-client-junit4-$version.jar"
classpath="$classpath:build/campaign-mock-client-junit5-$version.jar:$JUNIT_JARS/junit4.jar:$JUNIT_JARS/hamcrest-core.jar"
junit5="$JUNIT_JARS/junit-jupiter-api.jar:$JUNIT_JARS/apiguardian-api.jar:$JUNIT_JARS/opentest4j.jar"
# The Java examples of docs/jvm-client.md compile against the jars, as an Android build would (Java 8).
rm -rf build/doc-examples
awk '/^```java$/ { count++; file = "build/doc-examples/" count "/Example.java"; system("mkdir -p build/doc-examples/" count); next }
     /^```/ { file = ""; next }
     file != "" { print > file }' ../../docs/jvm-client.md
for example in build/doc-examples/*/Example.java; do
    # A public class goes in a file of its name.
    source="$(dirname "$example")/$(sed -n 's/^\(public \)\{0,1\}class \([A-Za-z0-9_]*\).*/\2/p' "$example" | head -n 1).java"
    mv "$example" "$source"
    javac --release 8 -Xlint:all -Werror -d "$(dirname "$source")" -cp "$classpath:$junit5" "$source" \
        || { echo "build.sh: a Java example of docs/jvm-client.md does not compile ($source)" >&2; exit 1; }
done
echo "==> the Java examples of docs/jvm-client.md compile"
# The released files install into a Maven repository as docs/jvm-client.md says (build/m2 above).
for artifact in campaign-mock-client campaign-mock-client-junit4 campaign-mock-client-junit5; do
    test -f "build/m2/io/github/campaignmock/$artifact/$version/$artifact-$version.pom"
done
echo "==> installed into a Maven repository: build/m2/io/github/campaignmock/"
# The tests run on the JVM only, so they may use Java 11 (java.net.http).
mkdir -p build/test-classes
# shellcheck disable=SC2046 # the sources' paths have no spaces
javac --release 11 -Xlint:all -d build/test-classes -cp "$classpath:$junit5" $(find tests -name '*.java')
exec java -jar "$JUNIT_JARS/junit-platform-console-standalone.jar" --disable-banner --fail-if-no-tests \
    --class-path "$classpath:build/test-classes" --select-package campaignmock.client
