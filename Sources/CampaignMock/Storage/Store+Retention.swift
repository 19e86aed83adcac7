import CampaignMockCore

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

    /// Rows one sweep deletes at most per table, so that the store's writer, which runs it, pauses
    /// briefly; a sweep that reached it runs again soon.
    static let batch = 20_000
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

    package var isEmpty: Bool { events == 0 && devices == 0 && registrations == 0 }
}

extension StoreTransaction {
    /// Deletes what `policy` no longer keeps, at most ``RetentionPolicy/batch`` rows per table. The history
    /// of only the devices registered after registration `historyAfter` is checked (the last sweep's
    /// ``RetentionSweep/historyCheckedUpTo``): a scan of every registration took 23 ms at 100,000 devices.
    package func sweep(
        _ policy: RetentionPolicy, now: Int64 = Clock.wallClockMicroseconds(), historyAfter: Int64 = 0
    ) throws -> RetentionSweep {
        var sweep = RetentionSweep()
        let batch = RetentionPolicy.batch
        let cutoff = policy.days > 0 ? now - Int64(policy.days) * 86_400_000_000 : nil

        // Events: the oldest beyond the newest `events`, and those before the cutoff; ids grow with time.
        var lastDoomedEvent: Int64 = 0
        if policy.events > 0 {
            lastDoomedEvent =
                try connection.scalar(
                    "SELECT id FROM tracking_events ORDER BY id DESC LIMIT 1 OFFSET ?", [Int64(policy.events)]
                ).integer ?? 0
        }
        if let cutoff {
            // From the oldest on, to the first event young enough: short while little is old.
            let firstKept = try connection.scalar(
                "SELECT id FROM tracking_events WHERE received_at >= ? ORDER BY id LIMIT 1", [cutoff]
            ).integer
            let old = try firstKept.map { $0 - 1 } ?? connection.scalar("SELECT max(id) FROM tracking_events").integer
            lastDoomedEvent = max(lastDoomedEvent, old ?? 0)
        }
        if lastDoomedEvent > 0 {
            try connection.query(
                "DELETE FROM tracking_events WHERE id IN (SELECT id FROM tracking_events WHERE id <= ? ORDER BY id LIMIT ?)",
                [lastDoomedEvent, Int64(batch)])
            sweep.events = connection.changes
        }

        // Devices: those seen longest ago beyond `devices`, and those not seen since the cutoff.
        var doomedDevices: [Int64] = []
        if policy.devices > 0, try connection.scalar("SELECT count(*) FROM devices").integer ?? 0 > policy.devices {
            doomedDevices = try connection.query(
                "SELECT id FROM devices ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
                [Int64(batch), Int64(policy.devices)]
            ).map { try $0.integer("id") }
        }
        if let cutoff, doomedDevices.count < batch {
            doomedDevices += try connection.query(
                "SELECT id FROM devices WHERE updated_at < ? LIMIT ?", [cutoff, Int64(batch - doomedDevices.count)]
            ).map { try $0.integer("id") }
        }
        for id in Set(doomedDevices) {
            try connection.query("DELETE FROM devices WHERE id = ?", [id])
            sweep.devices += connection.changes
        }

        // History: rows beyond the newest `historyPerDevice` of the devices registered since the last check.
        sweep.historyCheckedUpTo = historyAfter
        if policy.historyPerDevice > 0 {
            let recent = try connection.query(
                "SELECT device_id, max(id) AS last FROM registrations WHERE id > ? GROUP BY device_id ORDER BY last LIMIT ?",
                [historyAfter, Int64(batch)])
            for row in recent {
                let device = try row.integer("device_id")
                sweep.historyCheckedUpTo = max(sweep.historyCheckedUpTo, try row.integer("last"))
                try connection.query(
                    """
                    DELETE FROM registrations WHERE device_id = ? AND id < (
                        SELECT id FROM registrations WHERE device_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                    """, [device, device, Int64(policy.historyPerDevice - 1)])
                sweep.registrations += connection.changes
            }
            if recent.count == batch { sweep.more = true }
        }
        if sweep.events == batch || doomedDevices.count >= batch { sweep.more = true }
        return sweep
    }
}
