import CampaignMockSystem

/// How much a long-lived instance keeps (`--retain-events`, `--retain-devices`, `--retain-days`): beyond
/// it, the oldest tracking events, the devices seen longest ago and old registration history go, so the
/// store stops growing without bound. The request journal has its own bound, `--journal-limit`.
package struct RetentionPolicy: Sendable, Equatable {
    /// Newest tracking events kept; 0 keeps all.
    package var events = 1_000_000
    /// Devices kept, those registered most recently; 0 keeps all. A device goes with its history; its
    /// events stay, no longer linked to it.
    package var devices = 100_000
    /// Events older than this many days, and devices not registered again for as long, go; 0 keeps them.
    package var days = 0
    /// Registration history rows kept per device (the newest); the latest always stays, as the next
    /// registration is compared with it.
    package var historyPerDevice = 100

    package init() {}

    /// Devices one sweep deletes at most (with their history): about 10 ms of the writer's time, during
    /// which the writes queued behind it wait. Under a flood of writes a sweep takes a tenth of each
    /// (``RetentionPace/batch(pressure:)``).
    static let deviceBatch = 500
    /// Tracking events one sweep deletes at most: the oldest, a range of ids.
    static let eventBatch = 5_000
    /// Registrations one sweep looks through for devices with too much history.
    static let historyWindow = 5_000
}

/// What one sweep deleted.
package struct RetentionSweep: Sendable, Equatable {
    package var events = 0
    package var devices = 0
    package var registrations = 0
    /// Whether a table had more to delete than one sweep takes.
    package var more = false
    /// The newest registration the history check looked at; the next sweep starts after it.
    package var historyCheckedUpTo: Int64 = 0
    /// The newest registration and tracking event ids when the sweep ran: unchanged from one sweep to
    /// the next, nothing but the sweeper wrote meanwhile.
    package var newestWrites: [Int64] = []

    package var isEmpty: Bool { events == 0 && devices == 0 && registrations == 0 }
}

extension StoreTransaction {
    /// Deletes what `policy` no longer keeps, a bounded amount per call: `batch` (0 to 1) of
    /// ``RetentionPolicy/deviceBatch``, ``RetentionPolicy/eventBatch`` and ``RetentionPolicy/historyWindow``,
    /// every row found through an index. The history of only the devices
    /// registered after registration `historyAfter` is checked (the last sweep's
    /// ``RetentionSweep/historyCheckedUpTo``). With `settledAt`, the ``RetentionSweep/newestWrites`` of a
    /// sweep that left nothing to delete, and no `days` bound (which ages rows without a write), a store
    /// nobody wrote to since is left as it is: an idle store costs a sweep two lookups.
    package func sweep(
        _ policy: RetentionPolicy, now: Int64 = Clock.wallClockMicroseconds(), historyAfter: Int64 = 0,
        settledAt: [Int64] = [], batch: Double = 1
    ) throws -> RetentionSweep {
        var sweep = RetentionSweep()
        func part(of largest: Int) -> Int { max(1, Int((Double(largest) * min(1, batch)).rounded())) }
        let (deviceBatch, eventBatch, historyWindow) = (
            part(of: RetentionPolicy.deviceBatch), part(of: RetentionPolicy.eventBatch),
            part(of: RetentionPolicy.historyWindow)
        )
        let newestEvent = try connection.scalar("SELECT max(id) FROM tracking_events").integer ?? 0
        let newestRegistration = try connection.scalar("SELECT max(id) FROM registrations").integer ?? 0
        sweep.newestWrites = [newestRegistration, newestEvent]
        if policy.days == 0 && sweep.newestWrites == settledAt {
            sweep.historyCheckedUpTo = historyAfter
            return sweep
        }
        let cutoff = policy.days > 0 ? now - Int64(policy.days) * 86_400_000_000 : nil

        // Events: those whose ids are not among the newest `events` (ids only grow; a reset of one
        // application's events leaves a gap, and fewer are kept until newer ones fill it), and those
        // before the cutoff.
        var lastDoomedEvent: Int64 = policy.events > 0 ? newestEvent - Int64(policy.events) : 0
        if let cutoff {
            // From the oldest on, to the first event young enough: short while little is old.
            let firstKept = try connection.scalar(
                "SELECT id FROM tracking_events WHERE received_at >= ? ORDER BY id LIMIT 1", [cutoff]
            ).integer
            lastDoomedEvent = max(lastDoomedEvent, firstKept.map { $0 - 1 } ?? newestEvent)
        }
        if lastDoomedEvent > 0 {
            try connection.query(
                "DELETE FROM tracking_events WHERE id IN (SELECT id FROM tracking_events WHERE id <= ? ORDER BY id LIMIT ?)",
                [lastDoomedEvent, Int64(eventBatch)])
            sweep.events = connection.changes
        }

        // Devices: the registered longest ago beyond the newest `devices`, and those not seen since the
        // cutoff, oldest first, through the index by last registration. The count reads the smallest index
        // page by page, several times faster than stepping `devices` rows to the boundary.
        var doomed = Int64(deviceBatch)
        if policy.devices > 0 {
            let beyond = (try connection.scalar("SELECT count(*) FROM devices").integer ?? 0) - Int64(policy.devices)
            if beyond > 0 {
                try connection.query(
                    "DELETE FROM devices WHERE id IN (SELECT id FROM devices ORDER BY updated_at, id LIMIT ?)",
                    [min(doomed, beyond)])
                sweep.devices = connection.changes
                doomed -= Int64(sweep.devices)
                if beyond > Int64(sweep.devices) { sweep.more = true }
            }
        }
        if let cutoff, doomed > 0 {
            try connection.query(
                "DELETE FROM devices WHERE id IN (SELECT id FROM devices WHERE updated_at < ? ORDER BY updated_at LIMIT ?)",
                [cutoff, doomed])
            sweep.devices += connection.changes
        }

        // History: rows beyond the newest `historyPerDevice` of the devices registered again in the next
        // window of registrations since the last check. A device's first registration (`new`) is left out:
        // all of its history is then in this window or after it, so it has too much only with a later one,
        // which a window checks when it comes. Counting every new device's history was the dearest part of
        // a sweep under a load of new devices (a seek and a sort entry each, about 3 µs a registration).
        // A device imported with a history that says `new` more than once is checked once it registers
        // again.
        sweep.historyCheckedUpTo = historyAfter
        if policy.historyPerDevice > 0 && newestRegistration > historyAfter {
            let windowEnd = min(newestRegistration, historyAfter + Int64(historyWindow))
            let busy = try connection.query(
                """
                SELECT device_id FROM registrations WHERE id > ? AND id <= ? AND changes <> 'new' GROUP BY device_id
                HAVING (SELECT count(*) FROM registrations r WHERE r.device_id = registrations.device_id) > ?
                """, [historyAfter, windowEnd, Int64(policy.historyPerDevice)])
            for row in busy {
                let device = try row.integer("device_id")
                try connection.query(
                    """
                    DELETE FROM registrations WHERE device_id = ? AND id < (
                        SELECT id FROM registrations WHERE device_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """, [device, device, Int64(policy.historyPerDevice - 1)])
                sweep.registrations += connection.changes
            }
            sweep.historyCheckedUpTo = windowEnd
            if windowEnd < newestRegistration { sweep.more = true }
        }
        if sweep.events == eventBatch || doomed == 0 { sweep.more = true }
        return sweep
    }
}
