#!/bin/sh
# Holds classes to what Android API 24 has (docs/jvm-client.md): javap lists the references of every class
# in each JAR (its constant pool's classes, methods and fields) and those android-api-denylist.txt names
# fail the check, each with the API level that brought it; so does a class file newer than Java 8's (52).
# A lambda's bootstrap (java/lang/invoke/LambdaMetafactory) passes: Android's build rewrites lambdas.
# Usage: android-api-check.sh JAR...   (exit 1 naming each class and reference when one is found)
set -eu
denylist="$(dirname "$0")/android-api-denylist.txt"
[ "$#" -gt 0 ] || { echo "usage: $0 JAR..." >&2; exit 2; }
found=0
for jar in "$@"; do
    # shellcheck disable=SC2046 # class names have no spaces
    javap -v -cp "$jar" $(jar --list --file "$jar" | sed -n 's/\.class$//p' | tr / .) > "$jar.javap"
    awk -v jar="$jar" '
        NR == FNR { if ($0 !~ /^#/ && NF >= 2) { pattern[++patterns] = $1; level[patterns] = $2 }; next }
        /^Classfile / { class = $2; sub(/.*!\//, "", class) }
        /^  major version: / && $3 > 52 {
            printf "%s: %s is a Java %d class file; Android API 24 takes Java 8 (52)\n", jar, class, $3 - 44; bad = 1 }
        / = (Class|Methodref|InterfaceMethodref|Fieldref) / {
            reference = $0; sub(/.*\/\/ */, "", reference); gsub(/"/, "", reference)
            for (index_ = 1; index_ <= patterns; index_++) if (reference ~ pattern[index_]) {
                printf "%s: %s uses %s: Android API %s\n", jar, class, reference, level[index_]; bad = 1 } }
        END { exit bad }' "$denylist" "$jar.javap" || found=1
    rm -f "$jar.javap"
done
if [ "$found" = 1 ]; then
    echo "android-api-check: the classes above use what Android API 24 lacks (the client's minimum)" >&2
    exit 1
fi
