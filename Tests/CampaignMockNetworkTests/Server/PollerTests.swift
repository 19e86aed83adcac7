import Foundation
import Testing

@testable import CampaignMockHTTP
@testable import CampaignMockNetwork
@testable import CampaignMockSystem

/// A pipe whose ends close with it.
private final class Pipe {
    let reader: Int32
    let writer: Int32
    private var writerOpen = true

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0)
        reader = fds[0]
        writer = fds[1]
    }

    func write(_ text: String) {
        _ = text.utf8CString.withUnsafeBytes { Foundation.write(writer, $0.baseAddress, text.utf8.count) }
    }

    func closeWriter() {
        close(writer)
        writerOpen = false
    }

    deinit {
        close(reader)
        if writerOpen { close(writer) }
    }
}

@Suite("Poller: epoll and poll(2) report the same readiness")
struct PollerTests {
    @Test(arguments: Poller.Mechanism.allCases)
    func reportsOnlyTheReadyDescriptorsAfterOthersLeave(_ mechanism: Poller.Mechanism) throws {
        let poller = try Poller(mechanism)
        let pipes = (0..<5).map { _ in Pipe() }
        for pipe in pipes { try poller.register(pipe.reader, interest: .read) }
        #expect(try poller.wait(timeoutMilliseconds: 0).isEmpty)

        // Removing from the middle moves the last entry into the hole (poll's array); both still report.
        poller.unregister(pipes[1].reader)
        for index in [0, 1, 3, 4] { pipes[index].write("x") }
        let ready = try poller.wait(timeoutMilliseconds: 1000)
        #expect(Set(ready.map(\.descriptor)) == Set([pipes[0], pipes[3], pipes[4]].map(\.reader)))
        #expect(ready.allSatisfy { $0.readable && !$0.writable })
    }

    @Test(arguments: Poller.Mechanism.allCases)
    func watchesWhatItIsToldAndReportsAHangUp(_ mechanism: Poller.Mechanism) throws {
        let poller = try Poller(mechanism)
        let pipe = Pipe()
        try poller.register(pipe.writer, interest: .write)
        let writable = try poller.wait(timeoutMilliseconds: 1000)
        #expect(writable.map(\.descriptor) == [pipe.writer])
        #expect(writable.first?.writable == true)

        try poller.modify(pipe.writer, interest: [])
        #expect(try poller.wait(timeoutMilliseconds: 0).isEmpty)

        try poller.register(pipe.reader, interest: .read)
        pipe.closeWriter()
        poller.unregister(pipe.writer)
        let hungUp = try poller.wait(timeoutMilliseconds: 1000)
        #expect(hungUp.map(\.descriptor) == [pipe.reader])
        #expect(hungUp.first?.hangup == true)
    }

    @Test func waitsNoLongerThanAskedWhenNothingIsReady() throws {
        for mechanism in Poller.Mechanism.allCases {
            let poller = try Poller(mechanism)
            let pipe = Pipe()
            try poller.register(pipe.reader, interest: .read)
            #expect(try poller.wait(timeoutMilliseconds: 10).isEmpty)
        }
    }
}

@Suite("Client connections")
struct ClientConnectTests {
    /// The connection is made non-blocking and waited for with poll(2) on every system: a port nobody
    /// listens on is refused at once, with the reason.
    @Test func aRefusedConnectionSaysSo() throws {
        let listener = try Socket.listen(on: SocketAddress(parsing: "127.0.0.1", port: 0), backlog: 1)
        let port = try listener.localAddress().port
        listener.close()
        #expect(throws: SystemCallError(operation: "connect", errno: ECONNREFUSED)) {
            try Socket.connect(host: "127.0.0.1", port: port, timeoutSeconds: 5)
        }
    }

    /// A name that does not resolve reads as the resolver says, not as an errno of the same number.
    @Test func aNameThatDoesNotResolveSaysWhyInTheResolversWords() {
        let error = SystemCallError(resolving: "mock.invalid", code: EAI_NONAME)
        #if canImport(Darwin)
            let reason = "nodename nor servname provided, or not known"
        #else
            let reason = "Name or service not known"
        #endif
        #expect(error.description == "getaddrinfo mock.invalid failed: \(reason) (resolver code \(EAI_NONAME))")
        #expect(!error.isOutOfDescriptors)
    }

    @Test func aConnectedSocketIsBlockingAgain() throws {
        let listener = try Socket.listen(on: SocketAddress(parsing: "127.0.0.1", port: 0), backlog: 1)
        defer { listener.close() }
        let client = try Socket.connect(host: "127.0.0.1", port: try listener.localAddress().port, timeoutSeconds: 5)
        defer { client.close() }
        #expect(fcntl(client.descriptor, F_GETFL) & O_NONBLOCK == 0)
    }
}
