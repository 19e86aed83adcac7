/// A setting with a value that cannot be used, named as the user wrote it.
package struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
