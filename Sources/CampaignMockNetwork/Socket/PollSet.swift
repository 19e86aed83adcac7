import CampaignMockSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ``Poller`` over `poll(2)`: the watched descriptors in one array handed to the kernel on each wait, a
/// descriptor's slot found through a dictionary. Compiled and tested on every system; macOS's only one.
///
/// The kernel reports `POLLHUP` and `POLLERR` whatever was asked for. Linux does so for a descriptor
/// watched for nothing (as epoll does); macOS reports nothing for it, so there a peer that resets a
/// connection waiting for its answer is noticed when that answer is written, not before.
final class PollSet {
    // Handed to `poll` by every wait, on the owning loop's thread only (see `Connection`).
    @exclusivity(unchecked) private var entries: [pollfd] = []
    private var slots: [Int32: Int] = [:]

    func register(_ fd: Int32, interest: Poller.Interest) {
        if let slot = slots[fd] {
            entries[slot].events = Self.events(for: interest)
            return
        }
        slots[fd] = entries.count
        entries.append(pollfd(fd: fd, events: Self.events(for: interest), revents: 0))
    }

    func modify(_ fd: Int32, interest: Poller.Interest) throws(SystemCallError) {
        guard let slot = slots[fd] else { throw SystemCallError(operation: "poll: modify", errno: EBADF) }
        entries[slot].events = Self.events(for: interest)
    }

    /// Moves the last entry into the freed slot: no holes, no shifting.
    func unregister(_ fd: Int32) {
        guard let slot = slots.removeValue(forKey: fd) else { return }
        let last = entries.removeLast()
        if slot < entries.count {
            entries[slot] = last
            slots[last.fd] = slot
        }
    }

    func wait(timeoutMilliseconds: Int32) throws(SystemCallError) -> [Poller.Readiness] {
        let count = try systemCall("poll") { poll(&entries, nfds_t(entries.count), timeoutMilliseconds) }
        guard count > 0 else { return [] }
        var ready: [Poller.Readiness] = []
        ready.reserveCapacity(Int(count))
        for entry in entries where entry.revents != 0 {
            let flags = Int32(entry.revents)
            ready.append(
                Poller.Readiness(
                    descriptor: entry.fd,
                    readable: flags & Int32(POLLIN) != 0,
                    writable: flags & Int32(POLLOUT) != 0,
                    hangup: flags & Int32(POLLHUP | POLLERR | POLLNVAL) != 0
                ))
        }
        return ready
    }

    private static func events(for interest: Poller.Interest) -> Int16 {
        var events: Int32 = 0
        if interest.contains(.read) { events |= Int32(POLLIN) }
        if interest.contains(.write) { events |= Int32(POLLOUT) }
        return Int16(events)
    }
}
