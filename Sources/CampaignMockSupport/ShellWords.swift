/// Words for a POSIX shell (sh, bash, zsh, and Android's mksh): the lines the mock shows to paste, and the
/// line `adb shell` hands to a device's shell.
package enum ShellWords {
    /// `text` as one word: as is when it holds only characters no shell treats specially, else
    /// single-quoted (a `'` inside written `'\''`). The shell gives back exactly `text`.
    package static func quote(_ text: String) -> String {
        // A word that starts with `=` is quoted too: zsh expands `=name` to the path of the command `name`.
        let plain =
            !text.isEmpty && !text.hasPrefix("=")
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default: return "_-./:=@%+,".utf8.contains(byte)
                }
            }
        return plain ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }

    /// `words` as one line a shell splits back into exactly those words.
    package static func line(_ words: [String]) -> String {
        words.map(quote).joined(separator: " ")
    }
}
