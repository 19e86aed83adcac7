package import CampaignMockCore

/// Everything `campaign-mock serve` can be told. Built from defaults, then a JSON file, then
/// `CAMPAIGN_MOCK_*` environment variables, then command-line flags (see ``Configuration/resolve``).
package struct Configuration: Sendable, Equatable {
    /// Address to listen on.
    package var host = "127.0.0.1"
    /// HTTP port; 0 picks a free one.
    package var port: UInt16 = 8080
    /// Where the SQLite file lives.
    package var dataDirectory = ".campaign-mock"
    /// Keep state in memory only; nothing is written to disk.
    package var inMemory = false
    package var logLevel = LogLevel.info
    package var logFormat = LogFormat.text
    /// Most entries kept in the request journal; older ones are dropped and counted.
    package var journalLimit = 10_000
    /// Request limits and timeouts of the HTTP layer.
    package var limits = HTTPRequestParser.Limits()
    package var maxConnections = 4096
    package var headerTimeoutMilliseconds = 10_000
    package var bodyTimeoutMilliseconds = 30_000
    package var idleTimeoutMilliseconds = 60_000
    /// How long shutdown waits for requests in flight.
    package var shutdownGraceMilliseconds = 5_000
    /// Event-loop threads.
    package var eventLoops = Configuration.defaultEventLoops

    package init() {}

    /// The SQLite file, or nil in memory.
    package var databasePath: String? {
        inMemory ? nil : dataDirectory + "/campaign-mock.sqlite3"
    }

    /// One loop per core, at least one.
    package static var defaultEventLoops: Int { max(1, ProcessorInfo.activeProcessorCount) }
}
