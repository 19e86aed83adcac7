// The admin API's envelopes: the server answers with them and the clients read them, one declaration each.

/// How the admin API says why it refused a request: `{"error": "…"}`.
public struct ErrorAnswer: Sendable, Codable, Equatable {
    public var error: String

    public init(error: String) {
        self.error = error
    }
}

/// `GET /_mock/apps`: `{"apps": […]}`.
public struct ApplicationList: Sendable, Codable, Equatable {
    public var apps: [Application]

    public init(apps: [Application]) {
        self.apps = apps
    }
}

/// `GET /_mock/faults`: `{"faults": […]}`.
public struct FaultList: Sendable, Codable, Equatable {
    public var faults: [FaultStatus]

    public init(faults: [FaultStatus]) {
        self.faults = faults
    }
}

/// `POST /_mock/reset`: how many rows of each part were deleted, `{"deleted": {"devices": 3, …}}`.
public struct ResetAnswer: Sendable, Codable, Equatable {
    public var deleted: [String: Int]

    public init(deleted: [String: Int]) {
        self.deleted = deleted
    }
}
