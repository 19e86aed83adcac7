"""The integration checks decide from types, never from words: no rule in Sources/CampaignMockChecks tests,
searches or slices a reason or a message (a refusal's cause, a fault rule, an endpoint family and what a
registration changed reach them as types, docs/checks.md), and the observations they take in carry no
reason or message text. A rule that read the words would change with them, silently.

Run by `make test` (pytest Tests/Contract).
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKS = ROOT / "Sources" / "CampaignMockChecks"

# A value named `reason` or `message` (or `…Reason`, `…Message`), then a search, a test or a slice of its text.
READS_WORDS = re.compile(
    r"\b\w*(?:reason|Reason|message|Message)\b[?!]?\s*"
    r"(?:\.\s*(?:hasPrefix|hasSuffix|contains|firstRange|firstIndex|lastIndex|range|ranges|starts|split"
    r"|components|prefix|suffix|dropFirst|dropLast|replacing|firstMatch|wholeMatch|prefixMatch|trimmingPrefix)"
    r"\s*\(|\[)")
# A stored text named like a reason or a message.
TEXT_FIELD = re.compile(r"(?m)^\s*(?:package |public |private |fileprivate )?(?:var|let) "
                        r"(\w*(?:reason|Reason|message|Message))\s*:\s*String\b")


def words_read(folder):
    """Each `file:line: code` under `folder` that reads the words of a reason or a message."""
    found = []
    for file in sorted(folder.rglob("*.swift")):
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("//", 1)[0]
            if READS_WORDS.search(code):
                found.append(f"{file.relative_to(folder.parent.parent)}:{number}: {line.strip()}")
    return found


def test_the_pattern_finds_a_rule_that_reads_words_and_spares_other_texts():
    # How the rules read the journal's reason before they read types (each one is found).
    for line in [
        'if reason.hasPrefix("Missing integration key") {',
        '} else if reason.contains(" belongs to ") {',
        'refusal.reason.firstRange(of: "; ").map { String(refusal.reason[..<$0.lowerBound]) }',
        'guard reason.hasPrefix("fault "), let fired = reason.firstRange(of: " fired: ") else { return nil }',
        'let told = record.reason?.split(separator: ";")',
        'if finding.message.contains("nearest") {',
    ]:
        assert READS_WORDS.search(line), line
    # Texts that are no one's words: a token's shape, a user agent, the table of messages, a finding's words set.
    for line in [
        'token.contains(":APA91")',
        'if userAgent.contains("Android") || userAgent.contains("Dalvik") { return .android }',
        'messages.contains(key)',
        'let told = ClientText.capped(refusal.cause.reason)',
        'finding.message = { Self.userKeysMissing(app, now) }',
    ]:
        assert not READS_WORDS.search(line), line
    assert TEXT_FIELD.search("        package var reason: String\n")
    assert not TEXT_FIELD.search("        package var cause: RegistrationError\n")
    assert not TEXT_FIELD.search("        package var messageId: String\n")


def test_no_rule_reads_the_words_of_a_reason_or_a_message():
    assert CHECKS.is_dir()
    found = words_read(CHECKS)
    assert not found, "the checks read words instead of types:\n" + "\n".join(found)


def test_the_observations_carry_no_reason_or_message():
    text = (CHECKS / "Engine" / "CheckObservation.swift").read_text(encoding="utf-8")
    assert "enum CheckObservation" in text
    assert not TEXT_FIELD.findall(text)
