import ArgumentParser
import CampaignMockHTTP
import CampaignMockNetwork

/// `campaign-mock health`: is a server ready? For a container's health check, which has no curl, and for
/// scripts that wait for a start.
struct HealthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Exit 0 when a running server is ready (GET /_mock/ready), 1 when it is not.",
        discussion: """
            Example (a container's health check): campaign-mock health --timeout 2
            """
    )

    @OptionGroup var connection: ServerOptions
    @Option(help: "Seconds to wait for the answer (default 5).") var timeout: Int = 5

    func run() throws {
        guard (1...3600).contains(timeout) else {
            throw CommandFailure(message: "error: --timeout must be 1 to 3600 seconds", code: 2)
        }
        let endpoint = try connection.endpoint()
        let response: HTTPClient.Response
        do {
            response = try HTTPClient.send(.get, "/_mock/ready", to: endpoint, timeoutSeconds: timeout)
        } catch {
            throw CommandFailure(message: "not ready: \(error)", code: 1)
        }
        guard response.status == 200 else {
            throw CommandFailure(
                message: "not ready: \(endpoint.authority) answered \(response.status) \(response.text)", code: 1)
        }
        Output.standardOutput("ready: \(endpoint.authority)")
    }
}
